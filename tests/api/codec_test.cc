#include "api/codec.h"

#include <gtest/gtest.h>

namespace hpa::api {
namespace {

using nlohmann::json;

const json kFullHpa = json::parse(R"({
  "apiVersion": "autoscaling/v2",
  "kind": "HorizontalPodAutoscaler",
  "metadata": {"name": "web", "namespace": "default", "uid": "u-1", "resourceVersion": "42", "generation": 3,
               "annotations": {"a": "b"}, "managedFields": [{"manager": "kubectl"}]},
  "spec": {
    "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
    "minReplicas": 2, "maxReplicas": 10,
    "metrics": [
      {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}},
      {"type": "ContainerResource", "containerResource": {"name": "memory", "container": "app",
        "target": {"type": "AverageValue", "averageValue": "100Mi"}}},
      {"type": "Pods", "pods": {"metric": {"name": "packets", "selector": {"matchLabels": {"a": "b"}}},
        "target": {"type": "AverageValue", "averageValue": "1k"}}},
      {"type": "Object", "object": {"describedObject": {"apiVersion": "v1", "kind": "Service", "name": "svc"},
        "metric": {"name": "rps"}, "target": {"type": "Value", "value": "10"}}},
      {"type": "External", "external": {"metric": {"name": "queue", "selector": {"matchExpressions":
        [{"key": "q", "operator": "In", "values": ["x", "y"]}]}}, "target": {"type": "AverageValue", "averageValue": "30"}}}
    ],
    "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60, "policies": [{"type": "Pods", "value": 1, "periodSeconds": 30}],
                               "tolerance": "0.05"}}
  },
  "status": {
    "observedGeneration": 3, "lastScaleTime": "2024-05-01T12:00:05Z", "currentReplicas": 3, "desiredReplicas": 4,
    "currentMetrics": [
      {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 150, "averageValue": "150m"}}},
      {"type": ""}
    ],
    "conditions": [{"type": "AbleToScale", "status": "True", "lastTransitionTime": "2024-05-01T11:00:00Z",
                    "reason": "SucceededRescale", "message": "the HPA controller was able to update the target scale to 4"}]
  }
})");

TEST(HpaCodec, DecodesEveryMetricTypeAndStatus) {
  auto hpa = decodeHorizontalPodAutoscaler(kFullHpa);
  ASSERT_TRUE(hpa.ok()) << hpa.error().message;
  EXPECT_EQ(hpa->metadata.name, "web");
  EXPECT_EQ(hpa->metadata.generation, 3);
  EXPECT_EQ(hpa->spec.minReplicas, 2);
  EXPECT_EQ(hpa->spec.maxReplicas, 10);
  ASSERT_EQ(hpa->spec.metrics.size(), 5u);
  EXPECT_EQ(hpa->spec.metrics[0].as<api::ResourceMetricSource>()->target.averageUtilization, 50);
  EXPECT_EQ(hpa->spec.metrics[1].as<api::ContainerResourceMetricSource>()->container, "app");
  EXPECT_EQ(hpa->spec.metrics[1]
                .as<api::ContainerResourceMetricSource>()
                ->target.averageValue->milliValue(),
            104857600000);
  EXPECT_EQ(hpa->spec.metrics[2].as<api::PodsMetricSource>()->metric.selector->matchLabels.at("a"),
            "b");
  EXPECT_EQ(hpa->spec.metrics[3].as<api::ObjectMetricSource>()->describedObject.kind, "Service");
  EXPECT_EQ(hpa->spec.metrics[3].as<api::ObjectMetricSource>()->target.value->milliValue(), 10000);
  EXPECT_EQ(hpa->spec.metrics[4]
                .as<api::ExternalMetricSource>()
                ->metric.selector->matchExpressions[0]
                .values.size(),
            2u);
  EXPECT_EQ(hpa->status.currentMetrics.size(), 2u);
  EXPECT_EQ(hpa->status.currentMetrics[1].type, "");
  EXPECT_EQ(hpa->status.conditions[0].reason, "SucceededRescale");
  EXPECT_EQ(toUnixSeconds(*hpa->status.lastScaleTime), 1714564805);
}

TEST(HpaCodec, AppliesBehaviorDefaultsLikeTheApiServer) {
  auto hpa = decodeHorizontalPodAutoscaler(kFullHpa);
  ASSERT_TRUE(hpa.ok());
  const auto& b = *hpa->spec.behavior;
  ASSERT_TRUE(b.scaleUp.has_value());
  EXPECT_EQ(b.scaleUp->stabilizationWindowSeconds, 0);
  EXPECT_EQ(b.scaleUp->selectPolicy, "Max");
  ASSERT_EQ(b.scaleUp->policies->size(), 2u);
  EXPECT_EQ((*b.scaleUp->policies)[0], (HPAScalingPolicy{"Pods", 4, 15}));
  EXPECT_EQ((*b.scaleUp->policies)[1], (HPAScalingPolicy{"Percent", 100, 15}));
  EXPECT_EQ(b.scaleDown->stabilizationWindowSeconds, 60);
  EXPECT_EQ(b.scaleDown->selectPolicy, "Max");
  ASSERT_EQ(b.scaleDown->policies->size(), 1u);
  EXPECT_EQ((*b.scaleDown->policies)[0], (HPAScalingPolicy{"Pods", 1, 30}));
  EXPECT_DOUBLE_EQ(b.scaleDown->tolerance->asApproximateFloat(), 0.05);
}

TEST(HpaCodec, EmptyMetricsDefaultToCpu80AndMinReplicasStaysUnset) {
  auto hpa = decodeHorizontalPodAutoscaler(json::parse(
      R"({"spec": {"scaleTargetRef": {"kind": "Deployment", "name": "x"}, "maxReplicas": 3}})"));
  ASSERT_TRUE(hpa.ok());
  ASSERT_EQ(hpa->spec.metrics.size(), 1u);
  EXPECT_EQ(api::typeOf(hpa->spec.metrics[0]), "Resource");
  EXPECT_EQ(hpa->spec.metrics[0].as<api::ResourceMetricSource>()->name, "cpu");
  EXPECT_EQ(hpa->spec.metrics[0].as<api::ResourceMetricSource>()->target.averageUtilization, 80);
  EXPECT_FALSE(hpa->spec.minReplicas.has_value());
  EXPECT_FALSE(hpa->spec.behavior.has_value());
}

TEST(HpaCodec, RoundTripsThroughEncode) {
  auto hpa = decodeHorizontalPodAutoscaler(kFullHpa);
  ASSERT_TRUE(hpa.ok());
  auto again =
      decodeHorizontalPodAutoscaler(encodeHorizontalPodAutoscaler(*hpa, "autoscaling/v2beta2"));
  ASSERT_TRUE(again.ok()) << again.error().message;
  again->apiVersion = hpa->apiVersion;
  EXPECT_EQ(*again, *hpa);
}

TEST(HpaCodec, StatusEncodingFollowsGoFieldPresence) {
  HorizontalPodAutoscalerStatus s;
  s.desiredReplicas = 0;
  MetricStatus failed;  // a failed metric stays as an entry with an empty type
  s.currentMetrics.push_back(failed);
  json j = encodeHorizontalPodAutoscalerStatus(s);
  EXPECT_EQ(j.at("desiredReplicas"), 0);
  EXPECT_FALSE(j.contains("currentReplicas"));
  EXPECT_FALSE(j.contains("lastScaleTime"));
  EXPECT_EQ(j.at("currentMetrics")[0], json::parse(R"({"type": ""})"));
}

TEST(HpaCodec, StatusMergePatchMakesTheStoredStatusEqualAndLeavesTheMetadata) {
  auto hpa = decodeHorizontalPodAutoscaler(kFullHpa);
  ASSERT_TRUE(hpa.ok());
  HorizontalPodAutoscaler next = *hpa;
  next.status.currentReplicas = 0;  // scaled to zero: written, not omitted
  next.status.lastScaleTime.reset();
  next.status.observedGeneration.reset();
  next.status.currentMetrics.clear();
  next.status.conditions[0].reason = "BackoffBoth";
  const json patch = statusMergePatch(next);
  EXPECT_EQ(patch.at("metadata"), json::parse(R"({"resourceVersion": "42"})"));

  json stored = kFullHpa;
  stored.merge_patch(patch);  // what the apiserver does with application/merge-patch+json
  EXPECT_EQ(stored.at("metadata"), kFullHpa.at("metadata"));
  EXPECT_EQ(stored.at("spec"), kFullHpa.at("spec"));
  auto after = decodeHorizontalPodAutoscaler(stored);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(after->status, next.status);
  EXPECT_EQ(stored.at("status").at("currentReplicas"), 0);
  EXPECT_FALSE(stored.at("status").contains("lastScaleTime"));
  EXPECT_FALSE(stored.at("status").contains("currentMetrics"));

  json again = stored;
  again.merge_patch(statusMergePatch(*hpa));  // and back: every field returns
  EXPECT_EQ(again.at("status"), encodeHorizontalPodAutoscalerStatus(hpa->status));
}

TEST(HpaCodec, TheCachedHpaKeepsOnlyTheMetadataTheControllerReads) {
  json j = kFullHpa;
  j["metadata"]["labels"] = {{"team", "shop"}};
  j["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
      std::string(4000, 'x');
  j["metadata"]["annotations"]["hpa-controller.io/paused"] = "true";
  j["metadata"]["annotations"]["hpa-controller.io/history"] = "{}";
  auto full = decodeHorizontalPodAutoscaler(j);
  auto cached = decodeCachedHorizontalPodAutoscaler(j);
  ASSERT_TRUE(cached.ok());
  EXPECT_TRUE(cached->metadata.labels.empty());
  EXPECT_EQ(cached->metadata.annotations,
            (std::map<std::string, std::string>{{"hpa-controller.io/history", "{}"},
                                                {"hpa-controller.io/paused", "true"}}));
  EXPECT_EQ(cached->spec, full->spec);
  EXPECT_EQ(cached->status, full->status);
  EXPECT_EQ(cached->metadata.resourceVersion, "42");
  EXPECT_FALSE(
      decodeCachedHorizontalPodAutoscaler(json::parse(R"({"spec": {"maxReplicas": "x"}})")).ok());
}

struct BadHpa {
  const char* name;
  const char* body;
  const char* error;
};

// Prints the case by its name (gtest would dump the struct's bytes).
void PrintTo(const BadHpa& c, std::ostream* os) { *os << c.name; }

class HpaCodecErrors : public ::testing::TestWithParam<BadHpa> {};

TEST_P(HpaCodecErrors, NameTheField) {
  auto hpa = decodeHorizontalPodAutoscaler(json::parse(GetParam().body));
  ASSERT_FALSE(hpa.ok());
  EXPECT_EQ(hpa.error().message, GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Table, HpaCodecErrors,
    ::testing::Values(
        BadHpa{
            "UtilizationAsString",
            R"({"spec":{"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":"50"}}}]}})",
            "spec.metrics[0].resource.target.averageUtilization: expected an integer, got string"},
        BadHpa{"MaxReplicasOutOfRange", R"({"spec":{"maxReplicas":3000000000}})",
               "spec.maxReplicas: value 3000000000 out of range for int32"},
        BadHpa{"MaxReplicasFraction", R"({"spec":{"maxReplicas":2.5}})",
               "spec.maxReplicas: expected an integer, got 2.5"},
        BadHpa{"MetricsNotAnArray", R"({"spec":{"metrics":{}}})",
               "spec.metrics: expected an array, got object"},
        BadHpa{"MetricNotAnObject", R"({"spec":{"metrics":[3]}})",
               "spec.metrics[0]: expected an object, got integer"},
        BadHpa{"SpecNotAnObject", R"({"spec":[]})", "spec: expected an object, got array"},
        BadHpa{"BadTime", R"({"status":{"lastScaleTime":"yesterday"}})",
               "status.lastScaleTime: invalid RFC 3339 time \"yesterday\""},
        BadHpa{"BadPolicyValue",
               R"({"spec":{"behavior":{"scaleUp":{"policies":[{"type":"Pods","value":"x"}]}}}})",
               "spec.behavior.scaleUp.policies[0].value: expected an integer, got string"},
        BadHpa{"LabelsNotStrings", R"({"metadata":{"labels":{"a":1}}})",
               "metadata.labels.a: expected a string, got integer"}),
    [](const auto& info) { return std::string(info.param.name); });

// A directed input from the fuzz dictionary (hpa_fuzz): 1e19 in an integer field was converted
// to int64 before its range was checked, which is undefined behavior (UBSan:
// float-cast-overflow). Out-of-range and fractional numbers are errors naming the field.
TEST(HpaCodecErrors, HugeFloatsInIntegerFieldsAreErrorsNotUB) {
  for (const char* number : {"1e19", "-1e19", "1e300", "9.3e18"}) {
    auto hpa = decodeHorizontalPodAutoscaler(
        json::parse(std::string(R"({"spec":{"maxReplicas":)") + number + "}}"));
    ASSERT_FALSE(hpa.ok()) << number;
    EXPECT_EQ(hpa.error().message.rfind("spec.maxReplicas: expected an integer, got ", 0), 0u)
        << hpa.error().message;
  }
  auto generation =
      decodeHorizontalPodAutoscaler(json::parse(R"({"metadata":{"generation":4e15}})"));
  ASSERT_TRUE(generation.ok()) << generation.error().message;
  EXPECT_EQ(generation->metadata.generation, 4000000000000000);
}

TEST(HpaCodecErrors, BadQuantityNamesTheField) {
  auto hpa = decodeHorizontalPodAutoscaler(json::parse(
      R"({"spec":{"metrics":[{"type":"Pods","pods":{"metric":{"name":"x"},"target":{"type":"AverageValue","averageValue":"12parsecs"}}}]}})"));
  ASSERT_FALSE(hpa.ok());
  EXPECT_EQ(hpa.error().message.rfind("spec.metrics[0].pods.target.averageValue: ", 0), 0u)
      << hpa.error().message;
}

TEST(HpaCodecErrors, RootMustBeAnObject) {
  EXPECT_FALSE(decodeHorizontalPodAutoscaler(json::parse("[1,2]")).ok());
  EXPECT_FALSE(decodeHorizontalPodAutoscaler(json::parse("\"x\"")).ok());
}

TEST(SemanticEquality, IgnoresSubSecondTimesAndQuantityFormat) {
  HorizontalPodAutoscalerStatus a, b;
  a.lastScaleTime = fromUnixSeconds(100) + std::chrono::milliseconds(300);
  b.lastScaleTime = fromUnixSeconds(100);
  MetricStatus m;
  m.type = "Resource";
  m.resource = ResourceMetricStatus{
      "cpu", MetricValueStatus{std::nullopt, Quantity::fromMilli(1000), std::nullopt}};
  a.currentMetrics.push_back(m);
  m.resource->current.averageValue = *Quantity::parse("1");
  b.currentMetrics.push_back(m);
  EXPECT_TRUE(semanticallyEqual(a, b));
  b.desiredReplicas = 1;
  EXPECT_FALSE(semanticallyEqual(a, b));
}

TEST(ScaleCodec, DecodesAutoscalingV1Scale) {
  auto s = decodeScale(json::parse(R"({"apiVersion":"autoscaling/v1","kind":"Scale",
    "metadata":{"name":"web","namespace":"default","resourceVersion":"7"},
    "spec":{"replicas":3},"status":{"replicas":2,"selector":"app=web"}})"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->specReplicas, 3);
  EXPECT_EQ(s->statusReplicas, 2);
  EXPECT_EQ(s->selector, "app=web");
  EXPECT_EQ(s->metadata.resourceVersion, "7");
  auto zero = decodeScale(json::parse(R"({"spec":{},"status":{"replicas":0}})"));
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->specReplicas, 0);
  auto again = decodeScale(encodeScale(*s));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *s);
}

const json kPod = json::parse(R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web-7d4b9c8f6d-x2x9k", "namespace": "default", "uid": "0f1e", "resourceVersion": "11",
               "labels": {"app": "web", "pod-template-hash": "7d4b9c8f6d"},
               "ownerReferences": [{"kind": "ReplicaSet", "name": "web-7d4b9c8f6d"}]},
  "spec": {
    "initContainers": [{"name": "init", "image": "busybox", "resources": {"requests": {"cpu": "1"}}},
                       {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "50m"}}}],
    "containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"},
                                                                   "limits": {"cpu": "1"}},
                    "env": [{"name": "X", "value": "y"}]}],
    "nodeName": "node-1"
  },
  "status": {"phase": "Running", "startTime": "2024-05-01T11:58:00Z",
             "conditions": [{"type": "PodScheduled", "status": "True"},
                            {"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-01T11:58:30Z"}],
             "containerStatuses": [{"name": "app", "ready": true}]}
})");

TEST(PodCodec, ProjectsWhatTheCalculatorNeeds) {
  auto p = decodePod(kPod);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->name, "web-7d4b9c8f6d-x2x9k");
  EXPECT_EQ(p->labels.get("app"), "web");
  EXPECT_EQ(p->phase, "Running");
  ASSERT_TRUE(p->ready.has_value());
  EXPECT_EQ(p->ready->status, "True");
  EXPECT_EQ(toUnixSeconds(*p->ready->lastTransitionTime), toUnixSeconds(*p->startTime) + 30);
  ASSERT_EQ(p->containers.size(), 1u);
  EXPECT_EQ(p->containers[0].requests.get("cpu"), 100);
  EXPECT_EQ(p->containers[0].requests.get("memory"), 67108864000);
  ASSERT_EQ(p->initContainers.size(), 2u);
  EXPECT_FALSE(p->initContainers[0].restartPolicyAlways);
  EXPECT_TRUE(p->initContainers[1].restartPolicyAlways);
  EXPECT_FALSE(p->podRequests.has_value());
  EXPECT_FALSE(p->deletionTimestamp.has_value());
}

TEST(PodCodec, RoundTripsAndStaysSmall) {
  auto p = decodePod(kPod);
  ASSERT_TRUE(p.ok());
  auto again = decodePod(encodePod(*p));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, *p);
  EXPECT_LT(p->footprintBytes(), 1024u);
}

// Fuzz finding (pod_fuzz): a year outside what int64 nanoseconds hold overflowed (UB) while
// decoding the Ready condition's time; it is clamped now (parseRFC3339).
TEST(PodCodec, FarAwayTimesDecodeClamped) {
  auto p =
      decodePod(json::parse("{\"status\":{\"conditions\":[{\"type\":\"Ready\","
                            "\"lastTransitionTime\":\"1013-11-23T09:00:10Z\"}]}}"));
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_TRUE(p->ready && p->ready->lastTransitionTime);
  EXPECT_EQ(p->ready->lastTransitionTime->time_since_epoch().count(), -kParsedTimeLimitNanos);
}

TEST(PodCodec, PodLevelRequestsAndBadQuantity) {
  auto p = decodePod(
      json::parse(R"({"metadata":{"name":"p"},"spec":{"resources":{"requests":{"cpu":"2"}},
    "containers":[{"name":"a"}]}})"));
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p->podRequests.has_value());
  EXPECT_EQ(p->podRequests->get("cpu"), 2000);
  auto bad = decodePod(json::parse(
      R"({"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"lots"}}}]}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("spec.containers[0].resources.requests.cpu: ", 0), 0u)
      << bad.error().message;
}

TEST(PodCodec, KeepsActuatedRequestsOnlyWhereAResizeHasNotCaughtUp) {
  // spec asks app for 500m cpu (being resized up from 250m), memory already actuated; the
  // sidecar's status matches spec.
  auto p = decodePod(json::parse(R"({"metadata":{"name":"p"},"spec":{
    "containers":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"1Gi"}}}],
    "initContainers":[{"name":"proxy","restartPolicy":"Always","resources":{"requests":{"cpu":"50m"}}}]},
    "status":{"phase":"Running",
      "containerStatuses":[{"name":"app","resources":{"requests":{"cpu":"250m","memory":"1Gi"},"limits":{"cpu":"1"}}}],
      "initContainerStatuses":[{"name":"proxy","resources":{"requests":{"cpu":"50m"}}}]}})"));
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->containers[0].requests.get("cpu"), 500);
  EXPECT_EQ(p->containers[0].requests.actuated("cpu"), 250);
  EXPECT_EQ(p->containers[0].requests.actuated("memory"), std::nullopt);  // equal to spec
  EXPECT_FALSE(p->initContainers[0].requests.hasActuated());
  auto again = decodePod(encodePod(*p));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, *p);
}

TEST(ResourceList, LooksUpEachNameExactlyPastRecordsOfEveryShape) {
  ResourceList l{{"cp", 1}, {"cpu", 2}, {"cpus", 3}, {"memory", 4}};
  l.setActuated("cpu", 20);               // spec and actuated values
  l.setActuated("ephemeral-storage", 5);  // actuated only
  l.setActuated("memory", 40);
  EXPECT_EQ(l.get("cp"), 1);
  EXPECT_EQ(l.get("cpu"), 2);
  EXPECT_EQ(l.actuated("cpu"), 20);
  EXPECT_EQ(l.get("cpus"), 3);
  EXPECT_EQ(l.actuated("cpus"), std::nullopt);
  EXPECT_EQ(l.get("ephemeral-storage"), std::nullopt);
  EXPECT_EQ(l.actuated("ephemeral-storage"), 5);
  EXPECT_EQ(l.get("memory"), 4);
  EXPECT_EQ(l.actuated("memory"), 40);
  for (std::string_view absent : {"", "c", "cpv", "a", "zzz", "memoryx"}) {
    EXPECT_EQ(l.get(absent), std::nullopt) << absent;
    EXPECT_EQ(l.actuated(absent), std::nullopt) << absent;
  }
  // Whether any value is actuated follows every change, and equal lists are equal however built.
  EXPECT_TRUE(l.hasActuated());
  l.set("cpu", 20);
  l.set("memory", 40);
  EXPECT_TRUE(l.hasActuated());  // ephemeral-storage still
  l.set("ephemeral-storage", 5);
  EXPECT_FALSE(l.hasActuated());
  EXPECT_EQ(l.actuated("ephemeral-storage"), std::nullopt);
  EXPECT_EQ(l, (ResourceList{
                   {"memory", 40}, {"ephemeral-storage", 5}, {"cpus", 3}, {"cpu", 20}, {"cp", 1}}));
  EXPECT_EQ(ResourceList::fromValues({}), ResourceList());
  EXPECT_EQ(ResourceList::fromValues({{"cpu", 1}}), (ResourceList{{"cpu", 1}}));
}

TEST(ResourceList, PacksSpecAndActuatedValuesSorted) {
  ResourceList l{{"memory", 1024}, {"cpu", 100}};
  EXPECT_EQ(l.get("cpu"), 100);
  EXPECT_EQ(l.get("memory"), 1024);
  EXPECT_EQ(l.get("gpu"), std::nullopt);
  EXPECT_FALSE(l.hasActuated());
  EXPECT_EQ(l, (ResourceList{{"cpu", 100}, {"memory", 1024}}));  // order independent
  l.setActuated("cpu", 100);                                     // equal to spec: nothing kept
  EXPECT_FALSE(l.hasActuated());
  l.setActuated("cpu", 40);
  EXPECT_EQ(l.actuated("cpu"), 40);
  EXPECT_EQ(l.get("cpu"), 100);
  l.set("cpu", 40);  // spec caught up with what runs
  EXPECT_FALSE(l.hasActuated());
  l.setActuated("ephemeral-storage", 7);  // actuated without a spec value
  EXPECT_EQ(l.get("ephemeral-storage"), std::nullopt);
  EXPECT_EQ(l.actuated("ephemeral-storage"), 7);
  auto entries = l.entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].name, "cpu");
  EXPECT_EQ(entries[1].name, "ephemeral-storage");
  EXPECT_EQ(entries[2].name, "memory");
  l.set(std::string_view("bad\0name", 8), 1);  // names never carry NUL
  EXPECT_EQ(l.entries().size(), 3u);
  l.set("memory", -5);
  EXPECT_EQ(l.get("memory"), -5);

  auto bulk = ResourceList::fromValues({{"memory", 1}, {"cpu", 2}, {"memory", 3}});
  EXPECT_EQ(bulk, (ResourceList{{"cpu", 2}, {"memory", 3}}));
}

TEST(ResourceList, KeepsLimitsBesideSpecAndActuatedValues) {
  auto l = ResourceList::fromValues({{"memory", 1024}, {"cpu", 100}},
                                    {{"nvidia.com/gpu", 1000}, {"cpu", 500}, {"memory", 2048}});
  EXPECT_EQ(l.get("cpu"), 100);
  EXPECT_EQ(l.limit("cpu"), 500);
  EXPECT_EQ(l.get("memory"), 1024);
  EXPECT_EQ(l.limit("memory"), 2048);
  EXPECT_EQ(l.get("nvidia.com/gpu"), std::nullopt);  // a limit alone
  EXPECT_EQ(l.limit("nvidia.com/gpu"), 1000);
  EXPECT_FALSE(l.hasActuated());
  for (std::string_view absent : {"", "c", "cpv", "memoryx", "nvidia.com/gpus", "zzz"}) {
    EXPECT_EQ(l.limit(absent), std::nullopt) << absent;
    EXPECT_EQ(l.get(absent), std::nullopt) << absent;
  }
  // Records holding all three values, and each change keeping the others.
  l.setActuated("cpu", 250);
  EXPECT_EQ(l.actuated("cpu"), 250);
  EXPECT_EQ(l.limit("cpu"), 500);
  EXPECT_EQ(l.get("cpu"), 100);
  EXPECT_EQ(l.get("memory"), 1024);  // the records after it are read past all three
  EXPECT_EQ(l.limit("memory"), 2048);
  l.setLimit("cpu", 800);
  EXPECT_EQ(l.limit("cpu"), 800);
  EXPECT_EQ(l.actuated("cpu"), 250);
  EXPECT_EQ(l.get("cpu"), 100);
  l.set("cpu", 250);  // spec caught up: the actuated value goes, the limit stays
  EXPECT_FALSE(l.hasActuated());
  EXPECT_EQ(l.limit("cpu"), 800);
  auto entries = l.entries();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0], (ResourceList::Entry{"cpu", 250, std::nullopt, 800}));
  EXPECT_EQ(entries[2], (ResourceList::Entry{"nvidia.com/gpu", std::nullopt, std::nullopt, 1000}));

  // Equal however built; a limit makes a difference.
  ResourceList m{{"memory", 1024}, {"cpu", 250}};
  m.setLimit("nvidia.com/gpu", 1000);
  m.setLimit("memory", 2048);
  EXPECT_NE(l, m);
  m.setLimit("cpu", 800);
  EXPECT_EQ(l, m);
  m.setLimit("cpu", 801);
  EXPECT_NE(l, m);
  // The later of duplicates wins, names with NUL are dropped, as for spec values.
  EXPECT_EQ(
      ResourceList::fromValues({{"cpu", 1}}, {{"cpu", 5}, {std::string("x\0y", 3), 9}, {"cpu", 7}}),
      ResourceList::fromValues({{"cpu", 1}}, {{"cpu", 7}}));
  EXPECT_EQ(ResourceList::fromValues({}, {}), ResourceList());
}

TEST(ResourceList, ALimitCostsItsValueAndNoLimitCostsNothing) {
  const std::vector<std::pair<std::string, std::int64_t>> requests{
      {"cpu", 100}, {"ephemeral-storage", 1 << 20}, {"memory", 1024}};
  const auto without = ResourceList::fromValues(requests);
  EXPECT_EQ(ResourceList::fromValues(requests, {}), without);
  EXPECT_EQ(ResourceList::fromValues(requests, {}).heapBytes(), without.heapBytes());
  // Past the inline buffer, each limit of a requested resource adds its 8 bytes, nothing more.
  ASSERT_GT(without.heapBytes(), 0u);
  EXPECT_EQ(ResourceList::fromValues(requests, {{"memory", 2048}}).heapBytes(),
            without.heapBytes() + 8);
  EXPECT_EQ(ResourceList::fromValues(requests, {{"memory", 2048}, {"cpu", 500}}).heapBytes(),
            without.heapBytes() + 16);
}

TEST(PodCodec, KeepsLimitsOfContainersInitContainersAndThePod) {
  // Status limits (what the kubelet reports) are not kept: utilization against limits is
  // against spec's.
  const json pod = json::parse(R"({"metadata":{"name":"p"},"spec":{
    "resources":{"requests":{"cpu":"1"},"limits":{"cpu":"2","memory":"4Gi"}},
    "containers":[
      {"name":"app","resources":{"requests":{"cpu":"100m","memory":"1Gi"},
                                 "limits":{"cpu":"1","memory":"2Gi"}}},
      {"name":"log","resources":{"requests":{"cpu":"10m"}}}],
    "initContainers":[
      {"name":"proxy","restartPolicy":"Always",
       "resources":{"requests":{"cpu":"50m"},"limits":{"cpu":"200m"}}},
      {"name":"setup","resources":{"limits":{"cpu":"1"}}}]},
    "status":{"containerStatuses":[{"name":"log","resources":{"requests":{"cpu":"10m"},
                                                               "limits":{"cpu":"1"}}}]}})");
  auto p = decodePod(pod);
  ASSERT_TRUE(p.ok()) << p.error().message;
  const auto& app = p->containers[0].requests;
  EXPECT_EQ(app.get("cpu"), 100);
  EXPECT_EQ(app.limit("cpu"), 1000);
  EXPECT_EQ(app.limit("memory"), 2147483648000);
  EXPECT_EQ(p->containers[1].requests.limit("cpu"), std::nullopt);
  EXPECT_EQ(p->initContainers[0].requests.limit("cpu"), 200);
  EXPECT_EQ(p->initContainers[1].requests.get("cpu"), std::nullopt);  // not defaulted here
  EXPECT_EQ(p->initContainers[1].requests.limit("cpu"), 1000);
  ASSERT_TRUE(p->podRequests);
  EXPECT_EQ(p->podRequests->get("cpu"), 1000);
  EXPECT_EQ(p->podRequests->limit("cpu"), 2000);
  EXPECT_EQ(p->podRequests->get("memory"), std::nullopt);
  EXPECT_EQ(p->podRequests->limit("memory"), 4294967296000);
  // A container without limits is packed exactly as before limits were kept.
  EXPECT_EQ(p->containers[1].requests, (ResourceList{{"cpu", 10}}));
  auto again = decodePod(encodePod(*p));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, *p);

  // Pod-level limits alone are pod-level resources too.
  auto limitsOnly = decodePod(
      json::parse(R"({"spec":{"resources":{"limits":{"cpu":"2"}},"containers":[{"name":"a"}]}})"));
  ASSERT_TRUE(limitsOnly.ok());
  ASSERT_TRUE(limitsOnly->podRequests);
  EXPECT_EQ(limitsOnly->podRequests->get("cpu"), std::nullopt);
  EXPECT_EQ(limitsOnly->podRequests->limit("cpu"), 2000);
  EXPECT_EQ(*decodePod(encodePod(*limitsOnly)), *limitsOnly);
}

TEST(PodCodec, APodWithoutLimitsCostsWhatItDidBefore) {
  // The same pod with and without app's limits: the limits' 16 bytes are all that differ.
  json pod = json::parse(R"({"metadata":{"name":"p"},"spec":{"containers":[
    {"name":"app","resources":{"requests":{"cpu":"100m","ephemeral-storage":"1Gi","memory":"1Gi"},
                               "limits":{"cpu":"1","memory":"2Gi"}}}]}})");
  auto limited = decodePod(pod);
  pod["spec"]["containers"][0]["resources"].erase("limits");
  auto unlimited = decodePod(pod);
  ASSERT_TRUE(limited.ok() && unlimited.ok());
  EXPECT_EQ(unlimited->containers[0].requests,
            (ResourceList{
                {"cpu", 100}, {"ephemeral-storage", 1073741824000}, {"memory", 1073741824000}}));
  EXPECT_EQ(limited->footprintBytes(), unlimited->footprintBytes() + 16);
}

TEST(PodMetricsCodec, DecodesMetricsServerOutput) {
  auto list = decodePodMetricsList(
      json::parse(R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1",
    "metadata":{},"items":[{"metadata":{"name":"web-1","namespace":"default","labels":{"app":"web"}},
    "timestamp":"2024-05-01T12:00:05Z","window":"30.025s",
    "containers":[{"name":"app","usage":{"cpu":"109403u","memory":"587624Ki"}},
                  {"name":"sidecar","usage":{"cpu":"96343278n","memory":"16844Ki"}}]}]})"));
  ASSERT_TRUE(list.ok()) << list.error().message;
  ASSERT_EQ(list->items.size(), 1u);
  const auto& m = list->items[0];
  EXPECT_EQ(m.metadata.labels.at("app"), "web");
  EXPECT_EQ(m.window, std::chrono::milliseconds(30025));
  EXPECT_EQ(m.containers[0].usage.at("cpu").milliValue(), 110);
  EXPECT_EQ(m.containers[1].usage.at("cpu").milliValue(), 97);
  auto again = decodePodMetrics(encodePodMetrics(m, "metrics.k8s.io/v1beta1"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, m);
  EXPECT_FALSE(decodePodMetricsList(json::parse(R"({"items":[{"window":"forever"}]})")).ok());
}

// As upstream's typed clients: no kind is the kind asked for, another kind is refused.
TEST(MetricsCodec, ListsNamingAnotherKindAreRefused) {
  EXPECT_TRUE(decodePodMetricsList(json::parse(R"({"items":[]})")).ok());
  auto pods = decodePodMetricsList(json::parse(R"({"kind":"PodList","items":[]})"));
  ASSERT_FALSE(pods.ok());
  EXPECT_EQ(pods.error().message, "expected kind PodMetricsList, got \"PodList\"");
  EXPECT_TRUE(decodeExternalMetricValueList(json::parse(R"({"items":[]})")).ok());
  EXPECT_TRUE(
      decodeExternalMetricValueList(json::parse(R"({"kind":"ExternalMetricValueList","items":[]})"))
          .ok());
  EXPECT_FALSE(
      decodeExternalMetricValueList(json::parse(R"({"kind":"MetricValueList","items":[]})")).ok());
}

TEST(CustomMetricsCodec, DecodesBothVersionsByApiVersion) {
  auto v2 = decodeMetricValueList(
      json::parse(R"({"kind":"MetricValueList","apiVersion":"custom.metrics.k8s.io/v1beta2",
    "metadata":{},"items":[{"describedObject":{"kind":"Pod","namespace":"default","name":"web-1","apiVersion":"/v1"},
    "metric":{"name":"packets-per-second","selector":null},"timestamp":"2024-05-01T12:00:05Z","windowSeconds":60,"value":"1500m"}]})"));
  ASSERT_TRUE(v2.ok()) << v2.error().message;
  EXPECT_EQ(v2->items[0].metricName, "packets-per-second");
  EXPECT_EQ(v2->items[0].windowSeconds, 60);
  EXPECT_EQ(v2->items[0].value.milliValue(), 1500);
  EXPECT_FALSE(v2->items[0].metricSelector.has_value());

  auto v1 = decodeMetricValueList(
      json::parse(R"({"kind":"MetricValueList","apiVersion":"custom.metrics.k8s.io/v1beta1",
    "metadata":{},"items":[{"describedObject":{"kind":"Service","namespace":"default","name":"svc"},
    "metricName":"rps","timestamp":"2024-05-01T12:00:05Z","window":30,"value":"10","selector":{"matchLabels":{"a":"b"}}}]})"));
  ASSERT_TRUE(v1.ok()) << v1.error().message;
  EXPECT_EQ(v1->items[0].metricName, "rps");
  EXPECT_EQ(v1->items[0].windowSeconds, 30);
  EXPECT_EQ(v1->items[0].metricSelector->matchLabels.at("a"), "b");

  for (const auto* version : {"custom.metrics.k8s.io/v1beta1", "custom.metrics.k8s.io/v1beta2"}) {
    auto again = decodeMetricValueList(encodeMetricValueList(*v1, version));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->items, v1->items) << version;
  }
  EXPECT_FALSE(decodeMetricValueList(json::parse(R"({"kind":"MetricValueList","items":[]})")).ok());
  EXPECT_FALSE(decodeMetricValueList(json::parse(R"({"kind":"Status","apiVersion":"v1"})")).ok());
}

// Found reviewing what the metric decoders hand on: a window is added to timestamps (pod
// grouping) and converted from seconds to nanoseconds (the metrics client), which overflowed
// int64 (UB) for windows beyond 292 years. Windows beyond 146 years are errors naming the field.
TEST(CustomMetricsCodec, WindowsBeyondTheTimeRangeAreErrors) {
  auto huge = decodeMetricValueList(
      json::parse(R"({"kind":"MetricValueList","apiVersion":"custom.metrics.k8s.io/v1beta2",
    "items":[{"describedObject":{"kind":"Pod","name":"p"},"metric":{"name":"m"},"windowSeconds":9223372036854775807,
    "value":"1"}]})"));
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.error().message.rfind(
                "items[0].windowSeconds: value 9223372036854775807 out of range", 0),
            0u)
      << huge.error().message;
  auto external = decodeExternalMetricValueList(
      json::parse(R"({"items":[{"metricName":"q","window":-4611686019,"value":"1"}]})"));
  ASSERT_FALSE(external.ok());
  EXPECT_EQ(external.error().message.rfind("items[0].window: ", 0), 0u) << external.error().message;
  auto podWindow = decodePodMetrics(json::parse(R"({"window":"2562047h"})"));
  ASSERT_FALSE(podWindow.ok());
  EXPECT_EQ(podWindow.error().message.rfind("window: ", 0), 0u) << podWindow.error().message;
  auto fine = decodeExternalMetricValueList(
      json::parse(R"({"items":[{"metricName":"q","window":4611686018,"value":"1"}]})"));
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_EQ(fine->items[0].windowSeconds, 4611686018);
}

TEST(ExternalMetricsCodec, DecodesValues) {
  auto list = decodeExternalMetricValueList(json::parse(R"({"kind":"ExternalMetricValueList",
    "apiVersion":"external.metrics.k8s.io/v1beta1","metadata":{},"items":[{"metricName":"queue_messages_ready",
    "metricLabels":{"queue":"worker_tasks"},"timestamp":"2024-05-01T12:00:05Z","window":60,"value":"30"}]})"));
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(list->items[0].metricLabels.at("queue"), "worker_tasks");
  EXPECT_EQ(list->items[0].value.milliValue(), 30000);
  auto again = decodeExternalMetricValueList(encodeExternalMetricValueList(*list));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->items, list->items);
}

TEST(HistoryCodec, RoundTripsWithSubSecondTimestamps) {
  AutoscalerHistory h;
  h.name = "web";
  h.namespace_ = "default";
  h.recommendations.push_back({5, fromUnixSeconds(100) + std::chrono::milliseconds(250)});
  h.scaleUpEvents.push_back({2, fromUnixSeconds(90), false});
  h.scaleDownEvents.push_back({1, fromUnixSeconds(80), true});
  json j = encodeAutoscalerHistory(h);
  EXPECT_EQ(j.at("apiVersion"), "hpa-controller.io/v1alpha1");
  EXPECT_EQ(j.at("kind"), "AutoscalerHistory");
  auto again = decodeAutoscalerHistory(j);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, h);
}

TEST(HistoryCodec, RejectsBadEntries) {
  auto negative = decodeAutoscalerHistory(json::parse(
      R"({"scaleUpEvents":[{"replicaChange":-1,"timestamp":"2024-05-01T12:00:05Z"}]})"));
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().message, "scaleUpEvents[0].replicaChange: must be >= 0");
  auto noTime = decodeAutoscalerHistory(json::parse(R"({"recommendations":[{"replicas":3}]})"));
  ASSERT_FALSE(noTime.ok());
  EXPECT_EQ(noTime.error().message, "recommendations[0].timestamp: required");
  auto wrongVersion = decodeAutoscalerHistory(json::parse(R"({"apiVersion":"v1"})"));
  ASSERT_FALSE(wrongVersion.ok());
}

TEST(PodCodec, KeepsTheControllingOwnerOnly) {
  auto p = decodePod(
      json::parse(R"({"metadata": {"name": "web-5d8f-a", "namespace": "shop", "ownerReferences": [
      {"apiVersion": "v1", "kind": "Node", "name": "n1", "uid": "u0"},
      {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d8f", "uid": "u1", "controller": true}]}})"));
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_TRUE(p->controller);
  EXPECT_EQ(*p->controller, (PodOwner{"ReplicaSet", "web-5d8f"}));
  auto again = decodePod(encodePod(*p));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *p);
  auto orphan = decodePod(json::parse(R"({"metadata": {"name": "solo", "ownerReferences": [
      {"kind": "ReplicaSet", "name": "x", "controller": false}]}})"));
  ASSERT_TRUE(orphan.ok());
  EXPECT_FALSE(orphan->controller);
}

}  // namespace
}  // namespace hpa::api
