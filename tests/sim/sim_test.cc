#include <gtest/gtest.h>

#include "sim/load_model.h"
#include "sim/metrics_api.h"
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
    out.push_back({"demo", "web-" + std::to_string(i), api::Labels{{"app", "web"}}, i < ready, {"app"}});
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
  for (const auto& c : {Case{"workloads: [{name: w, selector: 'a in (', cpu: 1}]\n", "workloads[0].selector"},
                        Case{"workloads: [{name: w, selector: a=b, cpu: lots}]\n", "workloads[0].cpu"},
                        Case{"workloads: [{selector: a=b}]\n", "workloads[0].name: required"},
                        Case{"steps: [{at: soon, workload: w, cpu: 1}]\n", "steps[0].at"},
                        Case{"steps: [{at: 1s, workload: nope, cpu: 1}]\n", "no workload named \"nope\""},
                        Case{"workloads: {a: 1}\n", "workloads: must be a list"},
                        Case{"bogus: 1\n", "bogus: unknown key"},
                        Case{"workloads: [\n  - {name: a\n", "line"}}) {
    auto s = parseScenario("s.yaml", c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.error().message.find(c.part), std::string::npos) << s.error().message;
    EXPECT_EQ(s.error().message.rfind("s.yaml", 0), 0u) << s.error().message;
  }
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
  for (const auto& step : model.dueSteps(Duration(0), std::chrono::seconds(61))) ASSERT_TRUE(model.apply(step).ok());
  EXPECT_EQ(model.resourceUsage(more)[0].cpuMilli, 200);
}

TEST(LoadModel, NoiseStaysWithinBounds) {
  auto s = *parseScenario("s.yaml", "workloads: [{name: w, namespace: demo, selector: app=web, cpu: 1000m, noise: 0.1}]\n");
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
  auto list = serveMetricsApi("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods", {{"labelSelector", "app=web"}}, p, model, now);
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(list.body["kind"], "PodMetricsList");
  ASSERT_EQ(list.body["items"].size(), 3u);
  EXPECT_EQ(list.body["items"][0]["containers"][0]["usage"]["cpu"], "200m");
  EXPECT_EQ(list.body["items"][0]["timestamp"], "2026-11-23T10:00:00Z");

  auto one = serveMetricsApi("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods/web-1", {}, p, model, now);
  EXPECT_EQ(one.body["kind"], "PodMetrics");
  auto missing = serveMetricsApi("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods/nope", {}, p, model, now);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body["kind"], "Status");

  auto custom = serveMetricsApi("/apis/custom.metrics.k8s.io/v1beta2/namespaces/demo/pods/*/http_requests",
                                {{"labelSelector", "app=web"}}, p, model, now);
  ASSERT_EQ(custom.status, 200);
  ASSERT_EQ(custom.body["items"].size(), 3u);
  EXPECT_EQ(custom.body["items"][0]["value"], "30");
  EXPECT_EQ(custom.body["items"][0]["metric"]["name"], "http_requests");
  auto v1 = serveMetricsApi("/apis/custom.metrics.k8s.io/v1beta1/namespaces/demo/services/front/rps", {}, p, model, now);
  ASSERT_EQ(v1.status, 200);
  EXPECT_EQ(v1.body["items"][0]["metricName"], "rps");
  EXPECT_EQ(v1.body["items"][0]["value"], "30");

  auto external = serveMetricsApi("/apis/external.metrics.k8s.io/v1beta1/namespaces/demo/queue",
                                  {{"labelSelector", "queue=work"}}, p, model, now);
  ASSERT_EQ(external.body["items"].size(), 1u);
  EXPECT_EQ(external.body["items"][0]["value"], "12");

  auto discovery = serveMetricsApi("/apis/metrics.k8s.io/v1beta1", {}, p, model, now);
  EXPECT_EQ(discovery.body["kind"], "APIResourceList");
  auto badSelector = serveMetricsApi("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods", {{"labelSelector", "a in ("}}, p,
                                     model, now);
  EXPECT_EQ(badSelector.status, 400);
  EXPECT_EQ(serveMetricsApi("/apis/metrics.k8s.io/v2/x", {}, p, model, now).status, 404);
}

}  // namespace
}  // namespace hpa::sim
