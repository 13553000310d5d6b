#include "replay/target.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hpa::replay {
namespace {

explain::Snapshot load(const std::string& yaml) {
  auto s = explain::loadSnapshot({explain::SnapshotSource{"in.yaml", yaml}});
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? *s : explain::Snapshot{};
}

constexpr const char* kHpa =
    "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: "
    "demo}\n"
    "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: "
    "3\n"
    "  maxReplicas: 10\n  metrics:\n  - type: Resource\n"
    "    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}\n";

TEST(ReplayTarget, FromTheDeploymentOfTheSnapshot) {
  auto s = load(
      std::string(kHpa) +
      "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: demo}\nspec:\n"
      "  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n"
      "    metadata: {labels: {app: web, tier: front}}\n"
      "    spec: {containers: [{name: app, resources: {requests: {cpu: 100m}}}]}\n");
  auto t = targetFor(s.hpas.front().first, s, {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->kind, "Deployment");
  EXPECT_EQ(t->scale.specReplicas, 2);
  EXPECT_EQ(t->scale.selector, "app=web");
  EXPECT_EQ(t->podTemplate.labels.get("tier"), "front");
  EXPECT_EQ(t->podTemplate.containers[0].requests.get("cpu"), 100);

  auto flagged = targetFor(s.hpas.front().first, s, {5, 250, std::nullopt});
  ASSERT_TRUE(flagged.ok());
  EXPECT_EQ(flagged->scale.specReplicas, 5);
  EXPECT_EQ(flagged->podTemplate.containers[0].requests.get("cpu"), 250);
}

TEST(ReplayTarget, WithoutAWorkloadFromTheFlags) {
  auto s = load(kHpa);
  auto t = targetFor(s.hpas.front().first, s, {std::nullopt, 200, 64LL * 1024 * 1024 * 1000});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->scale.metadata.name, "web");
  EXPECT_EQ(t->scale.specReplicas, 3);  // minReplicas
  EXPECT_EQ(t->scale.selector, "app=web");
  ASSERT_EQ(t->podTemplate.containers.size(), 1u);
  EXPECT_EQ(t->podTemplate.containers[0].requests.get("cpu"), 200);
  EXPECT_EQ(t->podTemplate.containers[0].requests.get("memory"), 64LL * 1024 * 1024 * 1000);

  auto none = targetFor(s.hpas.front().first, s, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "spec.metrics[0] (cpu utilization) needs the pods' cpu request (missing request for "
            "cpu in container app "
            "of Pod web-0): give the target Deployment with its pod template (-f) or --cpu-request "
            "/ --memory-request");
}

TEST(ReplayTarget, AgainstLimitsThePodTemplateNeedsLimits) {
  const std::string hpa =
      std::string(kHpa).replace(std::string(kHpa).find("demo}"), 5,
                                "demo, annotations: {hpa-controller.io/requests-source: Limits}}");
  const std::string deployment =
      "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: demo}\n"
      "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n"
      "    metadata: {labels: {app: web}}\n"
      "    spec: {containers: [{name: app, resources: {requests: {cpu: 100m}CONTAINER_LIMITS}}]}\n";
  auto with = [&](const std::string& limits) {
    std::string d = deployment;
    d.replace(d.find("CONTAINER_LIMITS"), 16, limits);
    return load(hpa + d);
  };
  auto limited = with(", limits: {cpu: 400m}");
  auto t = targetFor(limited.hpas.front().first, limited, {});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->podTemplate.containers[0].requests.limit("cpu"), 400);

  auto unlimited = with("");
  auto refused =
      targetFor(unlimited.hpas.front().first, unlimited, {std::nullopt, 200, std::nullopt});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "spec.metrics[0] (cpu utilization against limits) needs the pods' cpu limit (missing "
            "limit for cpu in container app of Pod web-0): give the target Deployment with its pod "
            "template (-f)");
}

TEST(ReplayTarget, LabelsFromAScaleSelector) {
  auto s =
      load(std::string(kHpa) +
           "---\napiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web, namespace: demo}\n"
           "spec: {replicas: 4}\nstatus: {replicas: 4, selector: 'app=web,tier in (front)'}\n");
  auto t = targetFor(s.hpas.front().first, s, {std::nullopt, 100, std::nullopt});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->scale.specReplicas, 4);
  EXPECT_EQ(t->podTemplate.labels.get("app"), "web");
  EXPECT_EQ(t->podTemplate.labels.get("tier"), "front");

  auto bad =
      load(std::string(kHpa) +
           "---\napiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web, namespace: demo}\n"
           "spec: {replicas: 4}\nstatus: {replicas: 4, selector: 'app=web,gen>1'}\n");
  auto refused = targetFor(bad.hpas.front().first, bad, {std::nullopt, 100, std::nullopt});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message,
              ::testing::HasSubstr("cannot make pods that the target's selector"));
}

}  // namespace
}  // namespace hpa::replay
