// The same HorizontalPodAutoscalers as a kube-apiserver v1.20.2 answers them in autoscaling/v1 and
// in autoscaling/v2beta2: each was created as v2beta2 (the first one's status then patched
// through v2beta2's status subresource) and read back in both versions, managedFields and
// kubectl's last-applied-configuration left out. Decoding the v1 answer must give the HPA that
// decoding the v2beta2 answer gives.
#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/hpa_v1_conversion.h"

namespace hpa::api {
namespace {

using nlohmann::json;

struct ServerAnswers {
  const char* name;
  const char* v1;
  const char* v2beta2;
};

void PrintTo(const ServerAnswers& c, std::ostream* os) { *os << c.name; }

// web: every metric source but ContainerResource (alpha, off in 1.20), behavior, a status with
// current metrics and conditions.
constexpr const char* kWebV1 =
    R"json({"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v1","metadata":{"name":"web","namespace":"shop","uid":"8eeadb82-aaed-4eb9-bbfc-e0f10e846ba2","resourceVersion":"184","creationTimestamp":"2026-11-27T23:48:28Z","annotations":{"autoscaling.alpha.kubernetes.io/behavior":"{\"ScaleUp\":{\"StabilizationWindowSeconds\":0,\"SelectPolicy\":\"Max\",\"Policies\":[{\"Type\":\"Pods\",\"Value\":4,\"PeriodSeconds\":15},{\"Type\":\"Percent\",\"Value\":100,\"PeriodSeconds\":15}]},\"ScaleDown\":{\"StabilizationWindowSeconds\":60,\"SelectPolicy\":\"Max\",\"Policies\":[{\"Type\":\"Pods\",\"Value\":1,\"PeriodSeconds\":30}]}}","autoscaling.alpha.kubernetes.io/conditions":"[{\"type\":\"AbleToScale\",\"status\":\"True\",\"lastTransitionTime\":\"2026-11-23T09:00:00Z\",\"reason\":\"SucceededRescale\",\"message\":\"the HPA controller was able to update the target scale to 4\"},{\"type\":\"ScalingActive\",\"status\":\"True\",\"lastTransitionTime\":\"2026-11-23T09:00:00Z\",\"reason\":\"ValidMetricFound\",\"message\":\"the HPA was able to successfully calculate a replica count from pods metric http_requests\"},{\"type\":\"ScalingLimited\",\"status\":\"False\",\"lastTransitionTime\":\"2026-11-23T09:00:00Z\",\"reason\":\"DesiredWithinRange\",\"message\":\"the desired count is within the acceptable range\"}]","autoscaling.alpha.kubernetes.io/current-metrics":"[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"http_requests\",\"currentAverageValue\":\"12\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"queue_depth\",\"metricSelector\":{\"matchLabels\":{\"queue\":\"work\"},\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]}]},\"currentValue\":\"40\",\"currentAverageValue\":\"8\"}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Service\",\"name\":\"front\",\"apiVersion\":\"v1\"},\"metricName\":\"rps\",\"currentValue\":\"90\"}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Service\",\"name\":\"front\",\"apiVersion\":\"v1\"},\"metricName\":\"rps2\",\"currentValue\":\"21\",\"averageValue\":\"7\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"total\",\"currentValue\":\"33\"}},{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"currentAverageValue\":\"40Mi\"}},{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"currentAverageUtilization\":70,\"currentAverageValue\":\"70m\"}}]","autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"Pods\",\"pods\":{\"metricName\":\"http_requests\",\"targetAverageValue\":\"10\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"queue_depth\",\"metricSelector\":{\"matchLabels\":{\"queue\":\"work\"},\"matchExpressions\":[{\"key\":\"env\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]}]},\"targetAverageValue\":\"5\"}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Service\",\"name\":\"front\",\"apiVersion\":\"v1\"},\"metricName\":\"rps\",\"targetValue\":\"100\"}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Service\",\"name\":\"front\",\"apiVersion\":\"v1\"},\"metricName\":\"rps2\",\"targetValue\":\"0\",\"averageValue\":\"7\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"total\",\"targetValue\":\"30\"}},{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"targetAverageValue\":\"50Mi\"}}]","team":"shop"}},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},"minReplicas":2,"maxReplicas":10,"targetCPUUtilizationPercentage":50},"status":{"observedGeneration":1,"lastScaleTime":"2026-11-23T08:00:00Z","currentReplicas":3,"desiredReplicas":4,"currentCPUUtilizationPercentage":70}})json";
constexpr const char* kWebV2beta2 =
    R"json({"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v2beta2","metadata":{"name":"web","namespace":"shop","uid":"8eeadb82-aaed-4eb9-bbfc-e0f10e846ba2","resourceVersion":"184","creationTimestamp":"2026-11-27T23:48:28Z","annotations":{"team":"shop"}},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},"minReplicas":2,"maxReplicas":10,"metrics":[{"type":"Pods","pods":{"metric":{"name":"http_requests"},"target":{"type":"AverageValue","averageValue":"10"}}},{"type":"External","external":{"metric":{"name":"queue_depth","selector":{"matchLabels":{"queue":"work"},"matchExpressions":[{"key":"env","operator":"In","values":["a","b"]}]}},"target":{"type":"AverageValue","averageValue":"5"}}},{"type":"Object","object":{"describedObject":{"kind":"Service","name":"front","apiVersion":"v1"},"target":{"type":"Value","value":"100"},"metric":{"name":"rps"}}},{"type":"Object","object":{"describedObject":{"kind":"Service","name":"front","apiVersion":"v1"},"target":{"type":"AverageValue","value":"0","averageValue":"7"},"metric":{"name":"rps2"}}},{"type":"External","external":{"metric":{"name":"total"},"target":{"type":"Value","value":"30"}}},{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"50Mi"}}},{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}],"behavior":{"scaleUp":{"stabilizationWindowSeconds":0,"selectPolicy":"Max","policies":[{"type":"Pods","value":4,"periodSeconds":15},{"type":"Percent","value":100,"periodSeconds":15}]},"scaleDown":{"stabilizationWindowSeconds":60,"selectPolicy":"Max","policies":[{"type":"Pods","value":1,"periodSeconds":30}]}}},"status":{"observedGeneration":1,"lastScaleTime":"2026-11-23T08:00:00Z","currentReplicas":3,"desiredReplicas":4,"currentMetrics":[{"type":"Pods","pods":{"metric":{"name":"http_requests"},"current":{"averageValue":"12"}}},{"type":"External","external":{"metric":{"name":"queue_depth","selector":{"matchLabels":{"queue":"work"},"matchExpressions":[{"key":"env","operator":"In","values":["a","b"]}]}},"current":{"value":"40","averageValue":"8"}}},{"type":"Object","object":{"metric":{"name":"rps"},"current":{"value":"90"},"describedObject":{"kind":"Service","name":"front","apiVersion":"v1"}}},{"type":"Object","object":{"metric":{"name":"rps2"},"current":{"value":"21","averageValue":"7"},"describedObject":{"kind":"Service","name":"front","apiVersion":"v1"}}},{"type":"External","external":{"metric":{"name":"total"},"current":{"value":"33"}}},{"type":"Resource","resource":{"name":"memory","current":{"averageValue":"40Mi"}}},{"type":"Resource","resource":{"name":"cpu","current":{"averageValue":"70m","averageUtilization":70}}}],"conditions":[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-11-23T09:00:00Z","reason":"SucceededRescale","message":"the HPA controller was able to update the target scale to 4"},{"type":"ScalingActive","status":"True","lastTransitionTime":"2026-11-23T09:00:00Z","reason":"ValidMetricFound","message":"the HPA was able to successfully calculate a replica count from pods metric http_requests"},{"type":"ScalingLimited","status":"False","lastTransitionTime":"2026-11-23T09:00:00Z","reason":"DesiredWithinRange","message":"the desired count is within the acceptable range"}]}})json";

// plain: no metrics: the API default, cpu at 80 %.
constexpr const char* kPlainV1 =
    R"json({"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v1","metadata":{"name":"plain","namespace":"shop","uid":"88e225b7-7861-4eb5-9ec1-3a21ac4fa035","resourceVersion":"181","creationTimestamp":"2026-11-27T23:48:26Z","annotations":{}},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"plain","apiVersion":"apps/v1"},"minReplicas":1,"maxReplicas":4,"targetCPUUtilizationPercentage":80},"status":{"currentReplicas":0,"desiredReplicas":0}})json";
constexpr const char* kPlainV2beta2 =
    R"json({"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v2beta2","metadata":{"name":"plain","namespace":"shop","uid":"88e225b7-7861-4eb5-9ec1-3a21ac4fa035","resourceVersion":"181","creationTimestamp":"2026-11-27T23:48:26Z","annotations":{}},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"plain","apiVersion":"apps/v1"},"minReplicas":1,"maxReplicas":4,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}]},"status":{"currentReplicas":0,"desiredReplicas":0,"currentMetrics":null,"conditions":null}})json";

// cpuonly: a CPU target only.
constexpr const char* kCpuonlyV1 =
    R"json({"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v1","metadata":{"name":"cpuonly","namespace":"shop","uid":"aeca013f-44ea-4866-b30e-1e643c7f53f8","resourceVersion":"182","creationTimestamp":"2026-11-27T23:48:26Z","annotations":{}},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"cpuonly","apiVersion":"apps/v1"},"minReplicas":1,"maxReplicas":4,"targetCPUUtilizationPercentage":70},"status":{"currentReplicas":0,"desiredReplicas":0}})json";
constexpr const char* kCpuonlyV2beta2 =
    R"json({"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v2beta2","metadata":{"name":"cpuonly","namespace":"shop","uid":"aeca013f-44ea-4866-b30e-1e643c7f53f8","resourceVersion":"182","creationTimestamp":"2026-11-27T23:48:26Z","annotations":{}},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"cpuonly","apiVersion":"apps/v1"},"minReplicas":1,"maxReplicas":4,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}]},"status":{"currentReplicas":0,"desiredReplicas":0,"currentMetrics":null,"conditions":null}})json";

class ApiServer120Answers : public ::testing::TestWithParam<ServerAnswers> {};

TEST_P(ApiServer120Answers, V1DecodesAsV2beta2Does) {
  const auto& c = GetParam();
  auto v1 = decodeHorizontalPodAutoscalerV1(json::parse(c.v1));
  ASSERT_TRUE(v1.ok()) << v1.error().message;
  auto v2 = decodeHorizontalPodAutoscaler(json::parse(c.v2beta2));
  ASSERT_TRUE(v2.ok()) << v2.error().message;
  // v1 has no pointer for an object metric's targetValue: through v1 an AverageValue target
  // also carries value 0, as the API server converts it. The controller reads averageValue.
  for (auto& m : v2->spec.metrics) {
    auto* object = m.as<ObjectMetricSource>();
    if (object && !object->target.value) object->target.value = Quantity();
  }
  EXPECT_EQ(v1->spec, v2->spec);
  EXPECT_EQ(v1->status, v2->status);
  EXPECT_EQ(v1->metadata, v2->metadata);
}

INSTANTIATE_TEST_SUITE_P(Hpas, ApiServer120Answers,
                         ::testing::Values(ServerAnswers{"web", kWebV1, kWebV2beta2},
                                           ServerAnswers{"plain", kPlainV1, kPlainV2beta2},
                                           ServerAnswers{"cpuonly", kCpuonlyV1, kCpuonlyV2beta2}),
                         [](const auto& info) { return std::string(info.param.name); });

// The behavior survives v1 (in its annotation, with Go's field names), and is what decides.
TEST(ApiServer120Answers, BehaviorComesFromItsAnnotation) {
  auto v1 = decodeHorizontalPodAutoscalerV1(json::parse(kWebV1));
  ASSERT_TRUE(v1.ok()) << v1.error().message;
  ASSERT_TRUE(v1->spec.behavior && v1->spec.behavior->scaleDown);
  EXPECT_EQ(v1->spec.behavior->scaleDown->stabilizationWindowSeconds, 60);
  ASSERT_TRUE(v1->spec.behavior->scaleDown->policies);
  ASSERT_EQ(v1->spec.behavior->scaleDown->policies->size(), 1u);
  EXPECT_EQ((*v1->spec.behavior->scaleDown->policies)[0],
            (HPAScalingPolicy{kPodsScalingPolicy, 1, 30}));
  EXPECT_FALSE(v1->metadata.annotations.contains(kV1BehaviorAnnotation));
}

}  // namespace
}  // namespace hpa::api
