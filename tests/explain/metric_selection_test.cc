// `explain` selects metric series as the metrics APIs do for the request the live client sends
// (metricsclient/api_selection.h): every form of an External metric's selector, and an Object
// metric's metric selector over several series of one object. Each case asserts the proposal.
#include <gtest/gtest.h>

#include "explain/explain.h"
#include "explain/render.h"
#include "explain/snapshot.h"

namespace hpa::explain {
namespace {

// An External metric with AverageValue 10 on a Deployment at 4 replicas: the proposal is
// ceil(sum of the selected series / 10).
std::string externalSnapshot(const std::string& selectorYaml) {
  return R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: worker, namespace: jobs}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
  maxReplicas: 20
  metrics:
  - type: External
    external:
      metric:
        name: queue_depth
)" + selectorYaml +
         R"(      target: {type: AverageValue, averageValue: "10"}
---
apiVersion: autoscaling/v1
kind: Scale
metadata: {name: worker, namespace: jobs}
spec: {replicas: 4}
status: {replicas: 4, selector: app=worker}
---
apiVersion: external.metrics.k8s.io/v1beta1
kind: ExternalMetricValueList
metadata: {}
items:
- {metricName: queue_depth, metricLabels: {queue: work}, timestamp: "2026-11-23T09:59:50Z", value: "30"}
- {metricName: queue_depth, metricLabels: {queue: other}, timestamp: "2026-11-23T09:59:50Z", value: "50"}
- {metricName: queue_depth, metricLabels: {queue: batch}, timestamp: "2026-11-23T09:59:50Z", value: "20"}
- {metricName: unrelated, metricLabels: {queue: work}, timestamp: "2026-11-23T09:59:50Z", value: "1000"}
)";
}

nlohmann::json explainText(const std::string& text) {
  auto snapshot = loadSnapshot({SnapshotSource{"snap.yaml", text}});
  EXPECT_TRUE(snapshot.ok()) << snapshot.error().message;
  if (!snapshot.ok()) return nullptr;
  ExplainOptions options;
  options.now = *parseRFC3339("2026-11-23T10:00:00Z");
  auto explanation = explainSnapshot(*snapshot, options);
  EXPECT_TRUE(explanation.ok()) << explanation.error().message;
  if (!explanation.ok()) return nullptr;
  return explanationToJson(*explanation);
}

struct ExternalCase {
  const char* label;
  const char* selectorYaml;  // lines under `metric:`, or ""
  std::int32_t proposal;
  std::int64_t usageMilli;  // per pod: the selected total over the 4 current replicas
};

// Prints the case by its name (gtest would dump the struct's bytes).
void PrintTo(const ExternalCase& c, std::ostream* os) { *os << c.label; }

class ExternalSelector : public ::testing::TestWithParam<ExternalCase> {};

TEST_P(ExternalSelector, ProposesFromTheSeriesTheApiReturns) {
  const auto& c = GetParam();
  nlohmann::json doc = explainText(externalSnapshot(c.selectorYaml));
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(doc["branch"], "metrics") << doc.dump(2);
  const auto& metric = doc["metrics"][0];
  EXPECT_FALSE(metric.contains("error")) << metric.dump(2);
  EXPECT_EQ(metric["proposal"], c.proposal) << metric.dump(2);
  EXPECT_EQ(metric["calculation"]["usageMilli"], c.usageMilli);
  EXPECT_EQ(doc["metricReplicas"], c.proposal);
  for (const auto& condition : doc["status"]["conditions"]) {
    if (condition["type"] == "ScalingActive") {
      EXPECT_EQ(condition["reason"], "ValidMetricFound");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Forms, ExternalSelector,
    ::testing::Values(
        // Nil selector: the request carries no labelSelector, so all three series: 100 -> 10.
        ExternalCase{"no_selector", "", 10, 25000},
        // Empty selector: everything, the same request.
        ExternalCase{"empty_selector", "        selector: {}\n", 10, 25000},
        // matchLabels queue=work: 30 -> 3.
        ExternalCase{"match_labels", "        selector: {matchLabels: {queue: work}}\n", 3, 7500},
        // queue in (work, batch): 30 + 20 -> 5.
        ExternalCase{"match_expressions",
                     "        selector:\n          matchExpressions:\n"
                     "          - {key: queue, operator: In, values: [work, batch]}\n",
                     5, 12500},
        // queue notin (other): the same two series.
        ExternalCase{"match_expressions_not_in",
                     "        selector:\n          matchExpressions:\n"
                     "          - {key: queue, operator: NotIn, values: [other]}\n",
                     5, 12500}),
    [](const auto& info) { return std::string(info.param.label); });

// An Object metric of Service front with AverageValue 50 and three series of `requests`
// exported for it: the HPA's metric selector picks one.
std::string objectSnapshot(const std::string& selectorYaml) {
  return R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 30
  metrics:
  - type: Object
    object:
      describedObject: {apiVersion: v1, kind: Service, name: front}
      metric:
        name: requests
)" + selectorYaml +
         R"(      target: {type: AverageValue, averageValue: "50"}
---
apiVersion: autoscaling/v1
kind: Scale
metadata: {name: web, namespace: shop}
spec: {replicas: 3}
status: {replicas: 3, selector: app=web}
---
apiVersion: custom.metrics.k8s.io/v1beta2
kind: MetricValueList
metadata: {}
items:
- describedObject: {kind: Service, namespace: shop, name: front, apiVersion: /v1}
  metric: {name: requests, selector: {matchLabels: {path: api}}}
  timestamp: "2026-11-23T09:59:50Z"
  value: "250"
- describedObject: {kind: Service, namespace: shop, name: front, apiVersion: /v1}
  metric: {name: requests, selector: {matchLabels: {path: static}}}
  timestamp: "2026-11-23T09:59:50Z"
  value: "900"
- describedObject: {kind: Service, namespace: shop, name: back, apiVersion: /v1}
  metric: {name: requests, selector: {matchLabels: {path: api}}}
  timestamp: "2026-11-23T09:59:50Z"
  value: "5"
)";
}

TEST(ObjectMetricSelector, PicksTheSeriesOfTheSelector) {
  // path=api: 250 / 50 -> 5.
  nlohmann::json api =
      explainText(objectSnapshot("        selector: {matchLabels: {path: api}}\n"));
  ASSERT_FALSE(api.is_null());
  EXPECT_EQ(api["metrics"][0]["proposal"], 5) << api["metrics"][0].dump(2);
  EXPECT_EQ(api["metrics"][0]["calculation"]["usageMilli"], 83334);  // per pod: 250 over 3 replicas
  EXPECT_EQ(api["metricReplicas"], 5);

  // path=static: 900 / 50 -> 18.
  nlohmann::json statics =
      explainText(objectSnapshot("        selector: {matchLabels: {path: static}}\n"));
  ASSERT_FALSE(statics.is_null());
  EXPECT_EQ(statics["metrics"][0]["proposal"], 18) << statics["metrics"][0].dump(2);
}

TEST(ObjectMetricSelector, WithoutASelectorTwoSeriesAreTheApisAmbiguousAnswer) {
  // No metricLabelSelector: both series of Service front come back, and upstream's client
  // insists on exactly one.
  nlohmann::json doc = explainText(objectSnapshot(""));
  ASSERT_FALSE(doc.is_null());
  EXPECT_EQ(doc["branch"], "metrics-failed");
  EXPECT_TRUE(doc["metrics"][0]["proposal"].is_null());
  EXPECT_EQ(doc["metrics"][0]["conditionReason"], "FailedGetObjectMetric");
  EXPECT_NE(doc["metrics"][0]["error"].get<std::string>().find(
                "returned 2 results when we asked for exactly one"),
            std::string::npos)
      << doc["metrics"][0].dump(2);
}

}  // namespace
}  // namespace hpa::explain
