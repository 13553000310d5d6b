#include <gtest/gtest.h>

#include "api/codec.h"

namespace hpa::api {
namespace {

using nlohmann::json;

Time at(const char* rfc3339) { return *parseRFC3339(rfc3339); }

// An HPA as a 1.20 API server returns it while kube-controller-manager (through autoscaling/v1,
// its conditions in annotations) and hpa-controller both write its status: kubectl's entry
// (spec only), kube-controller-manager's Update with f:status, and our own, newer.
const json kTwoWritersHpa = json::parse(R"({
  "apiVersion": "autoscaling/v2beta2",
  "kind": "HorizontalPodAutoscaler",
  "metadata": {
    "name": "web", "namespace": "shop", "uid": "5f1c", "resourceVersion": "9021",
    "managedFields": [
      {"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "autoscaling/v2beta2",
       "time": "2026-11-23T09:00:00Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}},
                    "f:spec": {"f:maxReplicas": {}, "f:metrics": {}, "f:minReplicas": {},
                               "f:scaleTargetRef": {"f:apiVersion": {}, "f:kind": {}, "f:name": {}}}}},
      {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v1",
       "time": "2026-11-23T10:00:05Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:annotations": {"f:autoscaling.alpha.kubernetes.io/conditions": {},
                                                     "f:autoscaling.alpha.kubernetes.io/current-metrics": {}}},
                    "f:status": {"f:currentCPUUtilizationPercentage": {}, "f:currentReplicas": {},
                                 "f:desiredReplicas": {}, "f:lastScaleTime": {}}}},
      {"manager": "hpa-controller", "operation": "Update", "apiVersion": "autoscaling/v2beta2",
       "time": "2026-11-23T10:00:20Z", "fieldsType": "FieldsV1",
       "fieldsV1": {"f:metadata": {"f:annotations": {"f:hpa-controller.io/history": {}}},
                    "f:status": {"f:conditions": {}, "f:currentMetrics": {}}}}
    ]
  },
  "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 10}
})");

json withManagedFields(json entries) {
  json hpa = kTwoWritersHpa;
  hpa["metadata"]["managedFields"] = std::move(entries);
  return hpa;
}

TEST(StatusWriteCodec, TheNewestStatusWriteOfAnotherManagerIsKeptOursAndSpecWritesAreNot) {
  auto hpa = decodeHorizontalPodAutoscaler(kTwoWritersHpa);
  ASSERT_TRUE(hpa.ok()) << hpa.error().message;
  ASSERT_TRUE(hpa->lastForeignStatusWrite);
  EXPECT_EQ(hpa->lastForeignStatusWrite->manager, "kube-controller-manager");
  EXPECT_EQ(hpa->lastForeignStatusWrite->time, at("2026-11-23T10:00:05Z"));

  auto cached = decodeCachedHorizontalPodAutoscaler(kTwoWritersHpa);
  ASSERT_TRUE(cached.ok());
  EXPECT_EQ(cached->lastForeignStatusWrite, hpa->lastForeignStatusWrite);
}

TEST(StatusWriteCodec, OnlyOurOwnOrNoStatusWritesLeaveNothing) {
  json entries = kTwoWritersHpa["metadata"]["managedFields"];
  entries.erase(1);  // kube-controller-manager's
  auto hpa = decodeHorizontalPodAutoscaler(withManagedFields(entries));
  ASSERT_TRUE(hpa.ok());
  EXPECT_FALSE(hpa->lastForeignStatusWrite);

  json none = kTwoWritersHpa;
  none["metadata"].erase("managedFields");
  EXPECT_FALSE(decodeHorizontalPodAutoscaler(none)->lastForeignStatusWrite);
}

TEST(StatusWriteCodec, AStatusSubresourceEntryIsAStatusWriteWhateverItsFields) {
  // 1.22+ servers record writes through /status with subresource: status.
  auto hpa = decodeHorizontalPodAutoscaler(withManagedFields(json::parse(R"([
    {"manager": "other-autoscaler", "operation": "Update", "apiVersion": "autoscaling/v2", "time": "2026-11-23T10:01:00Z",
     "fieldsType": "FieldsV1", "fieldsV1": {}, "subresource": "status"},
    {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "autoscaling/v2",
     "time": "2026-11-23T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:desiredReplicas": {}}},
     "subresource": "status"}
  ])")));
  ASSERT_TRUE(hpa.ok());
  ASSERT_TRUE(hpa->lastForeignStatusWrite);
  EXPECT_EQ(hpa->lastForeignStatusWrite->manager, "other-autoscaler");
  EXPECT_EQ(hpa->lastForeignStatusWrite->time, at("2026-11-23T10:01:00Z"));
}

TEST(StatusWriteCodec, EntriesItCannotReadAreSkippedNotErrors) {
  auto hpa = decodeHorizontalPodAutoscaler(withManagedFields(json::parse(R"([
    {"manager": "no-time", "fieldsV1": {"f:status": {}}},
    {"manager": "bad-time", "time": "yesterday", "fieldsV1": {"f:status": {}}},
    {"manager": 7, "time": "2026-11-23T11:00:00Z", "fieldsV1": {"f:status": {}}},
    "not an entry",
    {"manager": "kube-controller-manager", "time": "2026-11-23T10:00:05Z", "fieldsV1": {"f:status": {}}}
  ])")));
  ASSERT_TRUE(hpa.ok()) << hpa.error().message;
  ASSERT_TRUE(hpa->lastForeignStatusWrite);
  EXPECT_EQ(hpa->lastForeignStatusWrite->manager, "kube-controller-manager");

  auto odd = decodeHorizontalPodAutoscaler(withManagedFields(json("not a list")));
  ASSERT_TRUE(odd.ok());
  EXPECT_FALSE(odd->lastForeignStatusWrite);
}

}  // namespace
}  // namespace hpa::api
