#include "api/hpa_v1_conversion.h"

#include <gtest/gtest.h>

#include "api/codec.h"

namespace hpa::api {
namespace {

using nlohmann::json;

// An HPA with a CPU target and four other metrics, as an autoscaling/v1 client reads it: the
// other metrics, the current values and the conditions in the annotations, in v1's shapes.
const json kV1Hpa = json::parse(R"({
  "apiVersion": "autoscaling/v1",
  "kind": "HorizontalPodAutoscaler",
  "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7",
    "annotations": {
      "team": "shop",
      "autoscaling.alpha.kubernetes.io/metrics": "[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"http_requests\",\"targetAverageValue\":\"10\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"queue_depth\",\"metricSelector\":{\"matchLabels\":{\"queue\":\"work\"}},\"targetAverageValue\":\"5\"}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Service\",\"name\":\"front\",\"apiVersion\":\"v1\"},\"metricName\":\"rps\",\"targetValue\":\"100\"}},{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"targetAverageValue\":\"50Mi\"}}]",
      "autoscaling.alpha.kubernetes.io/current-metrics": "[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"http_requests\",\"currentAverageValue\":\"12\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"queue_depth\",\"metricSelector\":{\"matchLabels\":{\"queue\":\"work\"}},\"currentValue\":\"0\",\"currentAverageValue\":\"8\"}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Service\",\"name\":\"front\",\"apiVersion\":\"v1\"},\"metricName\":\"rps\",\"currentValue\":\"90\"}},{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"currentAverageValue\":\"40Mi\"}},{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"currentAverageUtilization\":70,\"currentAverageValue\":\"70m\"}}]",
      "autoscaling.alpha.kubernetes.io/conditions": "[{\"type\":\"AbleToScale\",\"status\":\"True\",\"lastTransitionTime\":\"2026-11-23T09:00:00Z\",\"reason\":\"ReadyForNewScale\",\"message\":\"recommended size matches current size\"},{\"type\":\"ScalingActive\",\"status\":\"True\",\"lastTransitionTime\":\"2026-11-23T09:00:00Z\",\"reason\":\"ValidMetricFound\",\"message\":\"the HPA was able to successfully calculate a replica count from pods metric http_requests\"}]"
    }},
  "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
           "minReplicas": 2, "maxReplicas": 10, "targetCPUUtilizationPercentage": 50},
  "status": {"observedGeneration": 1, "lastScaleTime": "2026-11-23T08:00:00Z", "currentReplicas": 3,
             "desiredReplicas": 3, "currentCPUUtilizationPercentage": 70}
})");

// The same HPA as an autoscaling/v2 client reads it.
const json kV2Hpa = json::parse(R"({
  "apiVersion": "autoscaling/v2",
  "kind": "HorizontalPodAutoscaler",
  "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7", "annotations": {"team": "shop"}},
  "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
           "minReplicas": 2, "maxReplicas": 10,
           "metrics": [
             {"type": "Pods", "pods": {"metric": {"name": "http_requests"}, "target": {"type": "AverageValue", "averageValue": "10"}}},
             {"type": "External", "external": {"metric": {"name": "queue_depth", "selector": {"matchLabels": {"queue": "work"}}},
                                               "target": {"type": "AverageValue", "averageValue": "5"}}},
             {"type": "Object", "object": {"describedObject": {"kind": "Service", "name": "front", "apiVersion": "v1"},
                                           "metric": {"name": "rps"}, "target": {"type": "Value", "value": "100"}}},
             {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "50Mi"}}},
             {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}
           ]},
  "status": {"observedGeneration": 1, "lastScaleTime": "2026-11-23T08:00:00Z", "currentReplicas": 3, "desiredReplicas": 3,
             "currentMetrics": [
               {"type": "Pods", "pods": {"metric": {"name": "http_requests"}, "current": {"averageValue": "12"}}},
               {"type": "External", "external": {"metric": {"name": "queue_depth", "selector": {"matchLabels": {"queue": "work"}}},
                                                 "current": {"value": "0", "averageValue": "8"}}},
               {"type": "Object", "object": {"describedObject": {"kind": "Service", "name": "front", "apiVersion": "v1"},
                                             "metric": {"name": "rps"}, "current": {"value": "90"}}},
               {"type": "Resource", "resource": {"name": "memory", "current": {"averageValue": "40Mi"}}},
               {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 70, "averageValue": "70m"}}}
             ],
             "conditions": [
               {"type": "AbleToScale", "status": "True", "lastTransitionTime": "2026-11-23T09:00:00Z",
                "reason": "ReadyForNewScale", "message": "recommended size matches current size"},
               {"type": "ScalingActive", "status": "True", "lastTransitionTime": "2026-11-23T09:00:00Z",
                "reason": "ValidMetricFound",
                "message": "the HPA was able to successfully calculate a replica count from pods metric http_requests"}
             ]}
})");

TEST(HpaV1Conversion, ReadsAsTheSameHpaInV2) {
  auto v1 = decodeHorizontalPodAutoscalerV1(kV1Hpa);
  ASSERT_TRUE(v1.ok()) << v1.error().message;
  auto v2 = decodeHorizontalPodAutoscaler(kV2Hpa);
  ASSERT_TRUE(v2.ok()) << v2.error().message;
  EXPECT_EQ(v1->spec, v2->spec);
  EXPECT_EQ(v1->status, v2->status);
  // The annotations that carried v2's fields are gone; the others stay.
  EXPECT_EQ(v1->metadata, v2->metadata);
  EXPECT_EQ(v1->apiVersion, "autoscaling/v2");
}

TEST(HpaV1Conversion, CpuTargetAloneAndItsCurrentUtilization) {
  auto hpa = decodeHorizontalPodAutoscalerV1(json::parse(R"({
    "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
    "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 4, "targetCPUUtilizationPercentage": 60},
    "status": {"currentReplicas": 2, "desiredReplicas": 2, "currentCPUUtilizationPercentage": 90}})"));
  ASSERT_TRUE(hpa.ok()) << hpa.error().message;
  ASSERT_EQ(hpa->spec.metrics.size(), 1u);
  ASSERT_TRUE(hpa->spec.metrics[0].as<api::ResourceMetricSource>());
  EXPECT_EQ(hpa->spec.metrics[0].as<api::ResourceMetricSource>()->name, "cpu");
  EXPECT_EQ(hpa->spec.metrics[0].as<api::ResourceMetricSource>()->target.type, kUtilizationTarget);
  EXPECT_EQ(hpa->spec.metrics[0].as<api::ResourceMetricSource>()->target.averageUtilization, 60);
  EXPECT_FALSE(
      hpa->spec.minReplicas.has_value());  // the controller's default (1) applies, as for v2
  ASSERT_EQ(hpa->status.currentMetrics.size(), 1u);
  ASSERT_TRUE(hpa->status.currentMetrics[0].resource);
  EXPECT_EQ(hpa->status.currentMetrics[0].resource->current.averageUtilization, 90);
  EXPECT_FALSE(hpa->status.currentMetrics[0].resource->current.averageValue.has_value());
}

TEST(HpaV1Conversion, NoTargetAtAllIsTheDefaultCpuTarget) {
  auto hpa = decodeHorizontalPodAutoscalerV1(json::parse(R"({
    "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
    "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 4}})"));
  ASSERT_TRUE(hpa.ok()) << hpa.error().message;
  ASSERT_EQ(hpa->spec.metrics.size(), 1u);
  ASSERT_TRUE(hpa->spec.metrics[0].as<api::ResourceMetricSource>());
  EXPECT_EQ(hpa->spec.metrics[0].as<api::ResourceMetricSource>()->target.averageUtilization, 80);
}

// Which v2 target each v1 field set becomes, as the API server decides it.
TEST(HpaV1Conversion, TargetTypesFollowTheFieldsSet) {
  const std::string annotation = R"([
    {"type":"Object","object":{"target":{"kind":"Service","name":"s"},"metricName":"m","targetValue":"7","averageValue":"2"}},
    {"type":"External","external":{"metricName":"e","targetValue":"30"}},
    {"type":"Resource","resource":{"name":"cpu","targetAverageUtilization":40}},
    {"type":"ContainerResource","containerResource":{"name":"memory","container":"app","targetAverageValue":"1Gi"}},
    {"type":"Pods","pods":{"metricName":"p"}}])";
  json object = {
      {"apiVersion", "autoscaling/v1"},
      {"metadata", {{"name", "w"}, {"annotations", {{kV1MetricsAnnotation, annotation}}}}},
      {"spec", {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "w"}}}, {"maxReplicas", 3}}}};
  auto hpa = decodeHorizontalPodAutoscalerV1(object);
  ASSERT_TRUE(hpa.ok()) << hpa.error().message;
  const auto& m = hpa->spec.metrics;
  ASSERT_EQ(m.size(), 5u);  // no CPU target of v1's own: nothing appended, no default
  EXPECT_EQ(m[0].as<api::ObjectMetricSource>()->target.type, kAverageValueTarget);
  EXPECT_EQ(m[0].as<api::ObjectMetricSource>()->target.value, Quantity::fromValue(7));
  EXPECT_EQ(m[0].as<api::ObjectMetricSource>()->target.averageValue, Quantity::fromValue(2));
  EXPECT_EQ(m[0].as<api::ObjectMetricSource>()->describedObject.name, "s");
  EXPECT_EQ(m[1].as<api::ExternalMetricSource>()->target.type, kValueTarget);
  EXPECT_EQ(m[1].as<api::ExternalMetricSource>()->target.value, Quantity::fromValue(30));
  EXPECT_FALSE(m[1].as<api::ExternalMetricSource>()->metric.selector.has_value());
  EXPECT_EQ(m[2].as<api::ResourceMetricSource>()->target.type, kUtilizationTarget);
  EXPECT_EQ(m[3].as<api::ContainerResourceMetricSource>()->target.type, kAverageValueTarget);
  EXPECT_EQ(m[3].as<api::ContainerResourceMetricSource>()->container, "app");
  EXPECT_EQ(m[3].as<api::ContainerResourceMetricSource>()->target.averageValue,
            Quantity::parse("1Gi").value());
  // v1's targetAverageValue is not optional: absent, it is zero.
  EXPECT_EQ(m[4].as<api::PodsMetricSource>()->target.averageValue, Quantity());
}

json withBehaviorAnnotation(const std::string& behavior) {
  return {
      {"apiVersion", "autoscaling/v1"},
      {"metadata", {{"name", "w"}, {"annotations", {{kV1BehaviorAnnotation, behavior}}}}},
      {"spec", {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "w"}}}, {"maxReplicas", 3}}}};
}

// The annotation holds Go's field names; encoding/json also matches them ignoring case.
TEST(HpaV1Conversion, BehaviorAnnotationKeysMatchIgnoringCase) {
  auto hpa = decodeHorizontalPodAutoscalerV1(withBehaviorAnnotation(
      R"({"scaleDown": {"stabilizationWindowSeconds": 30, "POLICIES": [{"type": "Pods", "value": 2, "periodSeconds": 60}]}})"));
  ASSERT_TRUE(hpa.ok()) << hpa.error().message;
  ASSERT_TRUE(hpa->spec.behavior && hpa->spec.behavior->scaleDown);
  EXPECT_EQ(hpa->spec.behavior->scaleDown->stabilizationWindowSeconds, 30);
  ASSERT_TRUE(hpa->spec.behavior->scaleDown->policies);
  EXPECT_EQ(hpa->spec.behavior->scaleDown->policies->at(0),
            (HPAScalingPolicy{kPodsScalingPolicy, 2, 60}));
  // The other direction gets the API defaults, as a behavior with one direction does in v2.
  ASSERT_TRUE(hpa->spec.behavior->scaleUp);
  EXPECT_EQ(hpa->spec.behavior->scaleUp->stabilizationWindowSeconds, 0);
}

// As the API server: a behavior annotation that does not decode, or says nothing, is no behavior.
TEST(HpaV1Conversion, UnusableBehaviorAnnotationIsNoBehavior) {
  for (const char* behavior : {"not json", R"({"ScaleDown": {"StabilizationWindowSeconds": "60"}})",
                               R"({"ScaleUp": {"Policies": {}}})", "{}", "[]",
                               R"({"ScaleUp": null, "ScaleDown": null})"}) {
    auto hpa = decodeHorizontalPodAutoscalerV1(withBehaviorAnnotation(behavior));
    ASSERT_TRUE(hpa.ok()) << behavior << ": " << hpa.error().message;
    EXPECT_FALSE(hpa->spec.behavior.has_value()) << behavior;
    EXPECT_FALSE(hpa->metadata.annotations.contains(kV1BehaviorAnnotation)) << behavior;
  }
}

struct BadAnnotation {
  const char* label;
  const char* annotation;
  const char* value;
  const char* messagePart;
};

void PrintTo(const BadAnnotation& c, std::ostream* os) { *os << c.label; }

class V1BadAnnotations : public ::testing::TestWithParam<BadAnnotation> {};

TEST_P(V1BadAnnotations, NameTheAnnotationAndTheField) {
  const auto& c = GetParam();
  json object = {
      {"apiVersion", "autoscaling/v1"},
      {"metadata", {{"name", "w"}, {"annotations", {{c.annotation, c.value}}}}},
      {"spec", {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "w"}}}, {"maxReplicas", 3}}}};
  auto hpa = decodeHorizontalPodAutoscalerV1(object);
  ASSERT_FALSE(hpa.ok());
  EXPECT_NE(hpa.error().message.find(c.messagePart), std::string::npos) << hpa.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, V1BadAnnotations,
    ::testing::Values(
        BadAnnotation{"not_json", kV1MetricsAnnotation, "[{",
                      "metadata.annotations[autoscaling.alpha.kubernetes.io/metrics]: not JSON"},
        BadAnnotation{
            "not_an_array", kV1ConditionsAnnotation, "{}",
            "metadata.annotations[autoscaling.alpha.kubernetes.io/conditions]: expected an array"},
        BadAnnotation{"bad_quantity", kV1MetricsAnnotation,
                      R"([{"type":"Pods","pods":{"metricName":"p","targetAverageValue":"12Q"}}])",
                      "metadata.annotations[autoscaling.alpha.kubernetes.io/"
                      "metrics][0].pods.targetAverageValue"},
        BadAnnotation{
            "bad_utilization", kV1CurrentMetricsAnnotation,
            R"([{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":"high"}}])",
            "[autoscaling.alpha.kubernetes.io/"
            "current-metrics][0].resource.currentAverageUtilization"}),
    [](const auto& info) { return std::string(info.param.label); });

// Anyone can write an annotation: one nested beyond what the decoders recurse through is refused.
TEST(HpaV1Conversion, DeeplyNestedAnnotationIsRefused) {
  json object = {
      {"apiVersion", "autoscaling/v1"},
      {"metadata",
       {{"name", "w"}, {"annotations", {{kV1MetricsAnnotation, std::string(100000, '[')}}}}},
      {"spec", {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "w"}}}, {"maxReplicas", 3}}}};
  auto hpa = decodeHorizontalPodAutoscalerV1(object);
  ASSERT_FALSE(hpa.ok());
  EXPECT_NE(hpa.error().message.find("not JSON"), std::string::npos) << hpa.error().message;
}

TEST(HpaV1Conversion, SpecFieldsOfTheWrongTypeNameTheField) {
  auto hpa = decodeHorizontalPodAutoscalerV1(json::parse(R"({
    "apiVersion": "autoscaling/v1", "metadata": {"name": "web"},
    "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 4,
             "targetCPUUtilizationPercentage": "fifty"}})"));
  ASSERT_FALSE(hpa.ok());
  EXPECT_NE(hpa.error().message.find("spec.targetCPUUtilizationPercentage"), std::string::npos)
      << hpa.error().message;
}

}  // namespace
}  // namespace hpa::api
