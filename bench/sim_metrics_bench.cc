// hpa-sim's metrics answers at scale: a PodMetrics LIST of one namespace and of one workload's
// selector, answered from the pod index, with N pods (one per workload) over 10 namespaces. The
// selector answer should not grow with N; the namespace answer grows with the pods it returns.
#include <benchmark/benchmark.h>

#include <string>

#include "sim/load_model.h"
#include "sim/metrics_api.h"
#include "sim/pod_index.h"

namespace {

using namespace hpa;

constexpr int kNamespaces = 10;

struct Cluster {
  explicit Cluster(int n)
      : model(scenario(n), 1), index([this](const std::string& ns, const api::Labels& l) {
          return model.classify(ns, l);
        }) {
    for (int i = 0; i < n; ++i) {
      const std::string name = "w-" + std::to_string(i);
      index.upsert({ns(i),
                    name + "-abcde",
                    api::Labels{{"app", name}, {"pod-template-hash", "7d9f8b6c5d"}},
                    true,
                    {"app"}});
    }
  }
  static std::string ns(int i) { return "bench-" + std::to_string(i % kNamespaces); }
  static sim::Scenario scenario(int n) {
    sim::Scenario s;
    for (int i = 0; i < n; ++i) {
      s.workloads.push_back({"w-" + std::to_string(i), ns(i), "app=w-" + std::to_string(i), 50,
                             64 << 20, 0, std::nullopt});
    }
    return s;
  }
  sim::LoadModel model;
  sim::PodIndex index;
};

const Time kNow = Time(std::chrono::seconds(1700000000));

void BM_PodMetricsListSelector(benchmark::State& state) {
  Cluster c(static_cast<int>(state.range(0)));
  const std::map<std::string, std::string> query{{"labelSelector", "app=w-0"}};
  for (auto _ : state) {
    auto r = sim::serveMetricsApi("/apis/metrics.k8s.io/v1beta1/namespaces/bench-0/pods", query,
                                  c.index, c.model, kNow);
    benchmark::DoNotOptimize(r.body.dump());
  }
}
BENCHMARK(BM_PodMetricsListSelector)
    ->Arg(500)
    ->Arg(2000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

void BM_PodMetricsListNamespace(benchmark::State& state) {
  Cluster c(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto r = sim::serveMetricsApi("/apis/metrics.k8s.io/v1beta1/namespaces/bench-0/pods", {},
                                  c.index, c.model, kNow);
    benchmark::DoNotOptimize(r.body.dump());
  }
  state.counters["pods"] = static_cast<double>(state.range(0) / kNamespaces);
}
BENCHMARK(BM_PodMetricsListNamespace)
    ->Arg(500)
    ->Arg(2000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
