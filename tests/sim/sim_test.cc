#include <gtest/gtest.h>

#include "sim/load_model.h"
#include "sim/metrics_api.h"
#include "sim/pod_index.h"
#include "sim/scenario.h"

namespace hpa::sim {
namespace {

const char* kScenario = R"(workloads:
- {name: web, namespace: demo, selector: app=web, cpu: 600m, memory: 300Mi}
podMetrics:
- {workload: web, metric: http_requests, total: "90"}
objectMetrics:
- {namespace: demo, resource: services, name: front, metric: rps, value: "30"}
externalMetrics:
- {namespace: demo, metric: queue, labels: {queue: work}, value: "12"}
- {namespace: demo, metric: queue, labels: {queue: other}, value: "5"}
steps:
- {at: 1m, workload: web, cpu: 1200m}
- {at: 30s, external: queue, value: "40"}
)";

std::vector<SimPod> pods(int ready, int unready) {
  std::vector<SimPod> out;
  for (int i = 0; i < ready + unready; ++i) {
    out.push_back(
        {"demo", "web-" + std::to_string(i), api::Labels{{"app", "web"}}, i < ready, {"app"}});
  }
  out.push_back({"demo", "other", api::Labels{{"app", "db"}}, true, {"db"}});
  return out;
}

TEST(Scenario, ParsesAndSortsSteps) {
  auto s = parseScenario("s.yaml", kScenario);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->workloads.size(), 1u);
  EXPECT_EQ(s->workloads[0].cpuMilli, 600);
  EXPECT_EQ(s->workloads[0].memoryBytes, 300LL << 20);
  ASSERT_EQ(s->steps.size(), 2u);
  EXPECT_EQ(s->steps[0].at, std::chrono::seconds(30));
  EXPECT_EQ(s->steps[0].external, "queue");
}

TEST(Scenario, ErrorsNameThePlace) {
  struct Case {
    const char* text;
    const char* part;
  };
  for (const auto& c :
       {Case{"workloads: [{name: w, selector: 'a in (', cpu: 1}]\n", "workloads[0].selector"},
        Case{"workloads: [{name: w, selector: a=b, cpu: lots}]\n", "workloads[0].cpu"},
        Case{"workloads: [{selector: a=b}]\n", "workloads[0].name: required"},
        Case{"steps: [{at: soon, workload: w, cpu: 1}]\n", "steps[0].at"},
        Case{"steps: [{at: 1s, workload: nope, cpu: 1}]\n", "no workload named \"nope\""},
        Case{"workloads: {a: 1}\n", "workloads: must be a list"},
        Case{"bogus: 1\n", "bogus: unknown key"}, Case{"workloads: [\n  - {name: a\n", "line"}}) {
    auto s = parseScenario("s.yaml", c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.error().message.find(c.part), std::string::npos) << s.error().message;
    EXPECT_EQ(s.error().message.rfind("s.yaml", 0), 0u) << s.error().message;
  }
}

// What `hpa-sim steps` prints is what POST /set takes: each step's time and its change, read
// back into the same step.
TEST(Scenario, StepsAsChangesAreWhatSetReads) {
  auto s = parseScenario(
      "s.yaml", std::string(kScenario) + "- {at: 1m30.5s, workload: web, memory: 1Gi}\n" +
                    "- {at: 2m, workload: web, podMetric: http_requests, value: \"120\"}\n");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(stepsAsChanges(*s),
            "30 {\"external\":\"queue\",\"value\":\"40000m\"}\n"
            "60 {\"cpu\":\"1200m\",\"workload\":\"web\"}\n"
            "90.5 {\"memory\":\"1073741824\",\"workload\":\"web\"}\n"
            "120 {\"podMetric\":\"http_requests\",\"value\":\"120000m\",\"workload\":\"web\"}\n");
  for (const auto& step : s->steps) {
    auto read = parseChange(changeOf(step));
    ASSERT_TRUE(read.ok()) << read.error().message;
    Step expected = step;
    expected.at = Duration(0);
    EXPECT_EQ(changeOf(*read), changeOf(expected));
    EXPECT_EQ(read->cpuMilli, step.cpuMilli);
    EXPECT_EQ(read->memoryBytes, step.memoryBytes);
    EXPECT_EQ(read->valueMilli, step.valueMilli);
  }
}

TEST(Scenario, AChangeIsReadAsAStepIsAndErrorsNameTheField) {
  auto change = parseChange(nlohmann::json{{"workload", "web"}, {"cpu", "250m"}});
  ASSERT_TRUE(change.ok()) << change.error().message;
  EXPECT_EQ(change->workload, "web");
  EXPECT_EQ(change->cpuMilli, 250);
  EXPECT_EQ(parseChange(nlohmann::json{{"workload", "web"}, {"cpu", "lots"}})
                .error()
                .message.rfind("cpu: ", 0),
            0u);
  EXPECT_EQ(parseChange(nlohmann::json{{"workload", "web"}, {"cpu", "-1"}}).error().message,
            "cpu: must not be negative");
  EXPECT_FALSE(parseChange(nlohmann::json::array()).ok());
}

TEST(LoadModel, SpreadsDemandOverReadyPods) {
  LoadModel model(*parseScenario("s.yaml", kScenario), 1);
  auto p = pods(3, 1);
  auto usage = model.resourceUsage(p);
  ASSERT_EQ(usage.size(), 3u);  // the unready pod reports nothing; "other" matches no workload
  for (const auto& u : usage) {
    EXPECT_EQ(u.cpuMilli, 200);
    EXPECT_EQ(u.memoryBytes, 100LL << 20);
  }
  // Scaling out lowers the per-pod usage.
  auto more = pods(6, 0);
  EXPECT_EQ(model.resourceUsage(more)[0].cpuMilli, 100);
  // Steps apply on the timeline.
  for (const auto& step : model.dueSteps(Duration(0), std::chrono::seconds(61)))
    ASSERT_TRUE(model.apply(step).ok());
  EXPECT_EQ(model.resourceUsage(more)[0].cpuMilli, 200);
}

// The per-pod usage is rounded to the milli, halves away from zero (the soak's at-rest rule reads
// 150m over 4 pods as 38m each), for resource usage and per-pod custom metrics alike.
TEST(LoadModel, SharesAreRoundedToTheMilli) {
  auto s = *parseScenario("s.yaml", R"(workloads:
- {name: web, namespace: demo, selector: app=web, cpu: 150m, memory: 10}
podMetrics:
- {workload: web, metric: http_requests, total: 150m}
)");
  LoadModel model(s, 1);
  auto p = pods(4, 0);
  auto usage = model.resourceUsage(p);
  ASSERT_EQ(usage.size(), 4u);
  for (const auto& u : usage) {
    EXPECT_EQ(u.cpuMilli, 38);
    EXPECT_EQ(u.memoryBytes, 3);  // 2.5 bytes
  }
  PodIndex index(
      [&model](const std::string& ns, const api::Labels& l) { return model.classify(ns, l); });
  for (const auto& pod : p) index.upsert(pod);
  auto custom = model.podMetric(index.select("demo", *api::Selector::parse("app=web")), "demo",
                                "http_requests");
  ASSERT_EQ(custom.size(), 4u);
  for (const auto& [pod, milli] : custom) EXPECT_EQ(milli, 38) << pod->name;
  EXPECT_EQ(model.state(index.workloadCounts(1))["workloads"][0]["cpuMilliPerReadyPod"], 38);
}

TEST(LoadModel, NoiseStaysWithinBounds) {
  auto s = *parseScenario(
      "s.yaml",
      "workloads: [{name: w, namespace: demo, selector: app=web, cpu: 1000m, noise: 0.1}]\n");
  LoadModel model(s, 42);
  auto p = pods(1, 0);
  for (int i = 0; i < 200; ++i) {
    auto u = model.resourceUsage(p);
    ASSERT_EQ(u.size(), 1u);
    EXPECT_GE(u[0].cpuMilli, 900);
    EXPECT_LE(u[0].cpuMilli, 1100);
  }
}

TEST(MetricsApi, ServesThreeApis) {
  LoadModel model(*parseScenario("s.yaml", kScenario), 1);
  auto p = pods(3, 0);
  const Time now = *parseRFC3339("2026-11-23T10:00:00Z");
  auto list = serveMetricsApi("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods",
                              {{"labelSelector", "app=web"}}, p, model, now);
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(list.body["kind"], "PodMetricsList");
  ASSERT_EQ(list.body["items"].size(), 3u);
  EXPECT_EQ(list.body["items"][0]["containers"][0]["usage"]["cpu"], "200m");
  EXPECT_EQ(list.body["items"][0]["timestamp"], "2026-11-23T10:00:00Z");

  auto one =
      serveMetricsApi("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods/web-1", {}, p, model, now);
  EXPECT_EQ(one.body["kind"], "PodMetrics");
  auto missing =
      serveMetricsApi("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods/nope", {}, p, model, now);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body["kind"], "Status");

  auto custom =
      serveMetricsApi("/apis/custom.metrics.k8s.io/v1beta2/namespaces/demo/pods/*/http_requests",
                      {{"labelSelector", "app=web"}}, p, model, now);
  ASSERT_EQ(custom.status, 200);
  ASSERT_EQ(custom.body["items"].size(), 3u);
  EXPECT_EQ(custom.body["items"][0]["value"], "30");
  EXPECT_EQ(custom.body["items"][0]["metric"]["name"], "http_requests");
  auto v1 = serveMetricsApi(
      "/apis/custom.metrics.k8s.io/v1beta1/namespaces/demo/services/front/rps", {}, p, model, now);
  ASSERT_EQ(v1.status, 200);
  EXPECT_EQ(v1.body["items"][0]["metricName"], "rps");
  EXPECT_EQ(v1.body["items"][0]["value"], "30");

  auto external = serveMetricsApi("/apis/external.metrics.k8s.io/v1beta1/namespaces/demo/queue",
                                  {{"labelSelector", "queue=work"}}, p, model, now);
  ASSERT_EQ(external.body["items"].size(), 1u);
  EXPECT_EQ(external.body["items"][0]["value"], "12");

  auto discovery = serveMetricsApi("/apis/metrics.k8s.io/v1beta1", {}, p, model, now);
  EXPECT_EQ(discovery.body["kind"], "APIResourceList");
  auto badSelector = serveMetricsApi("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods",
                                     {{"labelSelector", "a in ("}}, p, model, now);
  EXPECT_EQ(badSelector.status, 400);
  EXPECT_EQ(serveMetricsApi("/apis/metrics.k8s.io/v2/x", {}, p, model, now).status, 404);
}

TEST(LoadModel, BatchOfStepsAppliesAllOrNothing) {
  auto s = *parseScenario("s.yaml", R"(workloads:
- {name: a, namespace: demo, selector: app=a, cpu: 100m}
- {name: b, namespace: demo, selector: app=b, cpu: 100m}
)");
  LoadModel model(s, 1);
  std::vector<SimPod> p{{"demo", "a-0", api::Labels{{"app", "a"}}, true, {"app"}},
                        {"demo", "b-0", api::Labels{{"app", "b"}}, true, {"app"}}};
  auto cpuStep = [](const char* workload, std::int64_t milli) {
    Step step;
    step.workload = workload;
    step.cpuMilli = milli;
    return step;
  };
  const Step a = cpuStep("a", 300), b = cpuStep("b", 400), bad = cpuStep("nope", 1);
  EXPECT_FALSE(model.apply(std::vector<Step>{a, bad}).ok());
  EXPECT_EQ(model.resourceUsage(p)[0].cpuMilli, 100);  // nothing applied
  ASSERT_TRUE(model.apply(std::vector<Step>{a, b}).ok());
  auto usage = model.resourceUsage(p);
  EXPECT_EQ(usage[0].cpuMilli, 300);
  EXPECT_EQ(usage[1].cpuMilli, 400);
}

TEST(MetricsApi, AnswersFromTheIndexPerNamespaceAndSelector) {
  auto s = *parseScenario("s.yaml", R"(workloads:
- {name: web, namespace: demo, selector: app=web, cpu: 900m, startupCpu: 50m}
- {name: db, namespace: demo, selector: app=db, cpu: 100m}
- {name: web2, namespace: other, selector: app=web, cpu: 10m}
)");
  LoadModel model(s, 1);
  PodIndex index(
      [&model](const std::string& ns, const api::Labels& l) { return model.classify(ns, l); });
  for (int i = 0; i < 4; ++i)
    index.upsert({"demo", "web-" + std::to_string(i), api::Labels{{"app", "web"}}, i < 3, {"app"}});
  index.upsert({"demo", "db-0", api::Labels{{"app", "db"}}, true, {"db"}});
  index.upsert({"other", "web-0", api::Labels{{"app", "web"}}, true, {"app"}});
  const Time now = *parseRFC3339("2026-11-23T10:00:00Z");
  const std::string base = "/apis/metrics.k8s.io/v1beta1/namespaces/";

  auto web = serveMetricsApi(base + "demo/pods", {{"labelSelector", "app=web"}}, index, model, now);
  ASSERT_EQ(web.status, 200);
  ASSERT_EQ(web.body["items"].size(), 4u);
  EXPECT_EQ(web.body["items"][0]["containers"][0]["usage"]["cpu"],
            "300m");  // 900m over 3 Ready pods
  EXPECT_EQ(web.body["items"][3]["metadata"]["name"], "web-3");
  EXPECT_EQ(web.body["items"][3]["containers"][0]["usage"]["cpu"],
            "50m");  // not Ready: start-up cpu

  auto all = serveMetricsApi(base + "demo/pods", {}, index, model, now);
  ASSERT_EQ(all.body["items"].size(), 5u);
  EXPECT_EQ(all.body["items"][0]["metadata"]["name"], "db-0");
  EXPECT_EQ(all.body["items"][0]["containers"][0]["name"], "db");
  EXPECT_EQ(all.body["items"][0]["containers"][0]["usage"]["cpu"], "100m");

  auto other =
      serveMetricsApi(base + "other/pods", {{"labelSelector", "app=web"}}, index, model, now);
  ASSERT_EQ(other.body["items"].size(), 1u);
  EXPECT_EQ(other.body["items"][0]["containers"][0]["usage"]["cpu"], "10m");

  auto one = serveMetricsApi(base + "demo/pods/web-2", {}, index, model, now);
  ASSERT_EQ(one.status, 200);
  EXPECT_EQ(one.body["containers"][0]["usage"]["cpu"], "300m");
  EXPECT_EQ(serveMetricsApi(base + "other/pods/web-2", {}, index, model, now).status, 404);

  // A pod becoming Ready lowers its siblings' share at once.
  index.upsert({"demo", "web-3", api::Labels{{"app", "web"}}, true, {"app"}});
  web = serveMetricsApi(base + "demo/pods", {{"labelSelector", "app=web"}}, index, model, now);
  EXPECT_EQ(web.body["items"][3]["containers"][0]["usage"]["cpu"], "225m");
}

}  // namespace
}  // namespace hpa::sim
