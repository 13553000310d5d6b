#include "api/workload.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace hpa::api {
namespace {

using nlohmann::json;

TEST(Workload, DeploymentProjectsWhatScaleShows) {
  json d = json::parse(R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop", "uid": "u-1", "resourceVersion": "42",
                 "labels": {"app": "web"}, "creationTimestamp": "2026-11-23T10:00:00Z"},
    "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"},
             "matchExpressions": [{"key": "tier", "operator": "In", "values": ["b", "a"]}]}},
    "status": {"replicas": 4}})");
  auto w = decodeWorkload(d, kDeployment);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->kind, "Deployment");
  EXPECT_EQ(w->namespace_, "shop");
  EXPECT_EQ(w->uid, "u-1");
  EXPECT_EQ(w->specReplicas, 3);
  EXPECT_EQ(w->statusReplicas, 4);
  EXPECT_EQ(w->selector, "app=web,tier in (a,b)");
  EXPECT_FALSE(w->controllerRef);

  Scale s = scaleOf(*w);
  EXPECT_EQ(s.metadata.name, "web");
  EXPECT_EQ(s.metadata.namespace_, "shop");
  EXPECT_EQ(s.metadata.resourceVersion, "42");  // a PUT of /scale carries it: stale caches get 409
  EXPECT_TRUE(s.metadata.labels.empty());       // /scale has no labels of its own
  EXPECT_EQ(s.specReplicas, 3);
  EXPECT_EQ(s.statusReplicas, 4);
  EXPECT_EQ(s.selector, "app=web,tier in (a,b)");
}

TEST(Workload, DefaultsAndAbsentFields) {
  auto w = decodeWorkload(
      json::parse(R"({"metadata": {"name": "a", "namespace": "n"}, "spec": {}})"), kStatefulSet);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->specReplicas, 1);  // the API server's default
  EXPECT_EQ(w->statusReplicas, 0);
  EXPECT_EQ(w->selector, "");
}

TEST(Workload, ReplicationControllerSelectorIsALabelMap) {
  auto w = decodeWorkload(json::parse(R"({"metadata": {"name": "rc", "namespace": "n"},
      "spec": {"replicas": 2, "selector": {"b": "2", "a": "1"}}, "status": {"replicas": 2}})"),
                          kReplicationController);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->selector, "a=1,b=2");
}

TEST(Workload, ControllerRefIsTheOwnerMarkedController) {
  auto w = decodeWorkload(
      json::parse(R"({"metadata": {"name": "web-5d4f", "namespace": "n", "ownerReferences": [
      {"apiVersion": "v1", "kind": "Other", "name": "x", "uid": "u-x"},
      {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u-web", "controller": true}]},
      "spec": {"replicas": 1}})"),
      kReplicaSet);
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_TRUE(w->controllerRef);
  EXPECT_EQ(*w->controllerRef, (OwnerReference{"apps/v1", "Deployment", "web", "u-web", true}));
}

TEST(Workload, ErrorsNameTheField) {
  auto badReplicas = decodeWorkload(
      json::parse(R"({"metadata": {"name": "a"}, "spec": {"replicas": "three"}})"), kDeployment);
  ASSERT_FALSE(badReplicas.ok());
  EXPECT_NE(badReplicas.error().message.find("spec.replicas"), std::string::npos)
      << badReplicas.error().message;
  auto badSelector = decodeWorkload(
      json::parse(R"({"metadata": {"name": "a"}, "spec": {"selector": {"matchExpressions": [
          {"key": "k", "operator": "Sometimes"}]}}})"),
      kDeployment);
  ASSERT_FALSE(badSelector.ok());
  EXPECT_NE(badSelector.error().message.find("spec.selector"), std::string::npos)
      << badSelector.error().message;
}

TEST(Workload, BuiltinKindsAndResources) {
  ASSERT_NE(builtinWorkloadByKind("apps", "StatefulSet"), nullptr);
  EXPECT_STREQ(builtinWorkloadByKind("apps", "StatefulSet")->resource, "statefulsets");
  EXPECT_STREQ(builtinWorkloadByResource("", "replicationcontrollers")->kind,
               "ReplicationController");
  EXPECT_EQ(builtinWorkloadByKind("", "Deployment"), nullptr);  // Deployments live in "apps"
  EXPECT_EQ(builtinWorkloadByKind("example.com", "Widget"), nullptr);
  EXPECT_EQ(builtinWorkloadByResource("apps", "widgets"), nullptr);
}

}  // namespace
}  // namespace hpa::api
