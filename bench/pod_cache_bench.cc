// Pod cache cost: decoding a full core/v1 Pod (as a watch delivers it, managedFields and all)
// into the lean api::Pod the replica calculator needs, and the heap bytes per pod held in the
// informer's cache (measured with mallinfo2 around filling an ObjectCache, so map and index
// nodes, shared_ptr control blocks and strings all count).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <nlohmann/json.hpp>

#include "api/codec.h"
#include "fakes/fake_clock.h"
#include "informer/object_cache.h"
#include "informer/pod_selector_index.h"

namespace {

using nlohmann::json;

json appContainer() {
  json container{
      {"name", "app"},
      {"image", "registry.example.com/team/web:1.42.0"},
      {"args", {"--port=8080", "--log-level=info", "--feature-x"}},
      {"env", json::array()},
      {"ports", {{{"name", "http"}, {"containerPort", 8080}, {"protocol", "TCP"}}}},
      {"resources",
       {{"requests", {{"cpu", "250m"}, {"memory", "256Mi"}}}, {"limits", {{"memory", "512Mi"}}}}},
      {"readinessProbe", {{"httpGet", {{"path", "/ready"}, {"port", 8080}}}, {"periodSeconds", 5}}},
      {"livenessProbe", {{"httpGet", {{"path", "/live"}, {"port", 8080}}}, {"periodSeconds", 10}}},
      {"volumeMounts",
       {{{"name", "config"}, {"mountPath", "/etc/web"}},
        {{"name", "kube-api-access-x7k2p"},
         {"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"},
         {"readOnly", true}}}}};
  for (int e = 0; e < 12; ++e)
    container["env"].push_back({{"name", "ENV_VAR_" + std::to_string(e)},
                                {"value", "some-configuration-value-" + std::to_string(e)}});
  return container;
}

json managedFields() {
  json managed = json::array();
  for (const char* manager : {"kube-controller-manager", "kubelet"}) {
    managed.push_back(
        {{"manager", manager},
         {"operation", "Update"},
         {"apiVersion", "v1"},
         {"time", "2026-11-23T09:00:00Z"},
         {"fieldsType", "FieldsV1"},
         {"fieldsV1",
          {{"f:metadata", {{"f:labels", {{".", json::object()}, {"f:app", json::object()}}}}},
           {"f:spec",
            {{"f:containers",
              {{"k:{\"name\":\"app\"}",
                {{".", json::object()},
                 {"f:image", json::object()},
                 {"f:env", json::object()}}}}}}},
           {"f:status",
            {{"f:conditions", json::object()}, {"f:containerStatuses", json::object()}}}}}});
  }
  return managed;
}

json podStatus(const json& container, const json& sidecar) {
  json conditions = json::array();
  for (const char* type : {"Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
    conditions.push_back({{"type", type},
                          {"status", "True"},
                          {"lastProbeTime", nullptr},
                          {"lastTransitionTime", "2026-11-23T09:00:10Z"}});
  }
  json statuses = json::array();
  for (const char* c : {"app", "proxy"}) {
    statuses.push_back(
        {{"name", c},
         {"ready", true},
         {"started", true},
         {"restartCount", 0},
         {"image", "registry.example.com/team/web:1.42.0"},
         {"imageID",
          "registry.example.com/team/"
          "web@sha256:0f3d4c8e9b1a2d3c4b5a6978877665544332211aabbccddeeff00112233445566"},
         {"containerID",
          "containerd://8d1c1f6c0b7e4e0c9a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7"},
         {"state", {{"running", {{"startedAt", "2026-11-23T09:00:05Z"}}}}},
         // Kubelets with in-place resize (1.33+) report what runs; here, spec's.
         {"resources", std::string(c) == "app" ? container["resources"] : sidecar["resources"]}});
  }
  return {{"phase", "Running"},
          {"conditions", conditions},
          {"hostIP", "10.0.3.17"},
          {"podIP", "10.244.7.31"},
          {"startTime", "2026-11-23T09:00:00Z"},
          {"containerStatuses", statuses},
          {"qosClass", "Burstable"}};
}

json fullPod(int i) {
  const std::string name = "web-7d9f8b6c5d-" + std::to_string(100000 + i);
  const json container = appContainer();
  json sidecar = container;
  sidecar["name"] = "proxy";
  sidecar["image"] = "registry.example.com/infra/proxy:3.1.0";
  sidecar["resources"] = {{"requests", {{"cpu", "50m"}, {"memory", "64Mi"}}}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"generateName", "web-7d9f8b6c5d-"},
            {"namespace", "production"},
            {"uid", "4f6b2c1e-8a3d-4e5f-9b7c-0d1e2f3a4b5c"},
            {"resourceVersion", std::to_string(1234567 + i)},
            {"creationTimestamp", "2026-11-23T09:00:00Z"},
            {"labels",
             {{"app", "web"},
              {"pod-template-hash", "7d9f8b6c5d"},
              {"team", "storefront"},
              {"tier", "frontend"}}},
            {"annotations",
             {{"prometheus.io/scrape", "true"},
              {"prometheus.io/port", "9090"},
              {"kubectl.kubernetes.io/restartedAt", "2026-11-20T10:00:00Z"}}},
            {"ownerReferences",
             {{{"apiVersion", "apps/v1"},
               {"kind", "ReplicaSet"},
               {"name", "web-7d9f8b6c5d"},
               {"uid", "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d"},
               {"controller", true},
               {"blockOwnerDeletion", true}}}},
            {"managedFields", managedFields()}}},
          {"spec",
           {{"containers", {container, sidecar}},
            {"volumes", {{{"name", "config"}, {"configMap", {{"name", "web-config"}}}}}},
            {"nodeName", "node-17"},
            {"serviceAccountName", "web"},
            {"tolerations",
             {{{"key", "node.kubernetes.io/not-ready"},
               {"operator", "Exists"},
               {"effect", "NoExecute"},
               {"tolerationSeconds", 300}}}}}},
          {"status", podStatus(container, sidecar)}};
}

void BM_DecodeFullPod(benchmark::State& state) {
  const json pod = fullPod(0);
  state.counters["json_bytes"] = static_cast<double>(pod.dump().size());
  for (auto _ : state) {
    auto decoded = hpa::api::decodePod(pod);
    benchmark::DoNotOptimize(decoded);
  }
  state.counters["ns/pod"] =
      benchmark::Counter(static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DecodeFullPod);

void BM_CachedPodBytes(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<json> pods;
  for (int i = 0; i < n; ++i) pods.push_back(fullPod(i));
  double bytesPerPod = 0;
  for (auto _ : state) {
    const auto before = mallinfo2().uordblks;
    {
      hpa::informer::ObjectCache<hpa::api::Pod> cache;
      for (const auto& j : pods) {
        auto pod = hpa::api::decodePod(j);
        auto ptr = std::make_shared<const hpa::api::Pod>(std::move(*pod));
        cache.put(ptr->namespace_, ptr->namespace_ + "/" + ptr->name, ptr);
      }
      const auto after = mallinfo2().uordblks;
      bytesPerPod = static_cast<double>(after - before) / n;
      benchmark::DoNotOptimize(cache);
    }
  }
  state.counters["bytes/pod"] = bytesPerPod;
}
BENCHMARK(BM_CachedPodBytes)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->Iterations(3);

// The pods of one HPA in a namespace of 100 HPAs with `range(0)` pods each: scanning the
// namespace (the lister before the selector index) against the index. Index bytes per pod:
// what the index adds, over the cache's own.
hpa::api::Pod leanPod(int workload, int i) {
  hpa::api::Pod p;
  p.name = "app-" + std::to_string(workload) + "-7d9f8b6c5d-" + std::to_string(10000 + i);
  p.namespace_ = "team";
  p.labels = {{"app", "app-" + std::to_string(workload)}, {"pod-template-hash", "7d9f8b6c5d"}};
  p.phase = "Running";
  return p;
}

void BM_PodsOfOneSelector(benchmark::State& state) {
  constexpr int kWorkloads = 100;
  const int podsEach = static_cast<int>(state.range(0));
  const bool indexed = state.range(1) != 0;
  hpa::testing::FakeClock clock;
  hpa::informer::ObjectCache<hpa::api::Pod> cache;
  hpa::informer::PodSelectorIndex index(clock);
  for (int w = 0; w < kWorkloads; ++w) {
    for (int i = 0; i < podsEach; ++i) {
      auto ptr = std::make_shared<const hpa::api::Pod>(leanPod(w, i));
      cache.put(ptr->namespace_, ptr->namespace_ + "/" + ptr->name, ptr);
    }
  }
  std::vector<hpa::api::Selector> selectors;
  for (int w = 0; w < kWorkloads; ++w)
    selectors.push_back(*hpa::api::Selector::parse("app=app-" + std::to_string(w)));
  const auto before = mallinfo2().uordblks;
  for (const auto& s : selectors) index.list("team", s, cache);
  const double indexBytes =
      static_cast<double>(mallinfo2().uordblks - before) / (kWorkloads * podsEach);
  std::size_t found = 0;
  int w = 0;
  for (auto _ : state) {
    const auto& selector = selectors[static_cast<std::size_t>(w++ % kWorkloads)];
    if (indexed) {
      found += index.list("team", selector, cache)->size();
    } else {
      for (auto& pod : cache.list("team")) found += selector.matches(pod->labels);
    }
  }
  benchmark::DoNotOptimize(found);
  state.counters["pods/namespace"] = kWorkloads * podsEach;
  if (indexed) state.counters["index bytes/pod"] = indexBytes;
  state.SetLabel(indexed ? "selector index" : "namespace scan");
}
BENCHMARK(BM_PodsOfOneSelector)
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({10, 0})
    ->Args({10, 1})
    ->Args({100, 0})
    ->Args({100, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
