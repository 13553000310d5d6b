#include "replay/overrides.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/defaults.h"
#include "common/yaml_json.h"

namespace hpa::replay {
namespace {

using std::chrono::seconds;

RunSettings settings(const std::string& extra = "") {
  auto docs = yamlDocumentsToJson(
      "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, "
      "namespace: demo}\n"
      "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: "
      "2\n"
      "  maxReplicas: 10\n  metrics:\n  - type: Resource\n"
      "    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}\n" +
      extra);
  auto hpa = api::decodeHorizontalPodAutoscaler(docs->front());
  EXPECT_TRUE(hpa.ok()) << hpa.error().message;
  return RunSettings{*hpa, ReplayOptions{}};
}

Status apply(RunSettings& s, std::initializer_list<const char*> texts) {
  std::vector<Override> overrides;
  for (const char* t : texts) {
    auto o = parseOverride(t);
    if (!o.ok()) return o.error();
    overrides.push_back(*o);
  }
  return applyOverrides(s, overrides);
}

std::string errorOf(std::initializer_list<const char*> texts) {
  auto s = settings();
  auto status = apply(s, texts);
  EXPECT_FALSE(status.ok());
  return status.ok() ? "" : status.error().message;
}

TEST(Overrides, SetSpecFieldsThroughTheWireForm) {
  auto s = settings();
  auto status = apply(s, {"spec.minReplicas=3", "maxReplicas=12",
                          "metrics[0].resource.target.averageUtilization=70"});
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(s.hpa.spec.minReplicas, 3);
  EXPECT_EQ(s.hpa.spec.maxReplicas, 12);
  EXPECT_EQ(s.hpa.spec.metrics[0].as<api::ResourceMetricSource>()->target.averageUtilization, 70);
  EXPECT_EQ(s.hpa.apiVersion, "autoscaling/v2beta2");
}

// Setting one field of an absent behavior gives a behavior with the API server's defaults.
TEST(Overrides, BehaviorFieldsAreDefaultedAsTheApiServerWould) {
  auto s = settings();
  auto status = apply(s, {"behavior.scaleDown.stabilizationWindowSeconds=60",
                          "behavior.scaleDown.selectPolicy=Min"});
  ASSERT_TRUE(status.ok()) << status.error().message;
  ASSERT_TRUE(s.hpa.spec.behavior.has_value());
  EXPECT_EQ(s.hpa.spec.behavior->scaleDown->stabilizationWindowSeconds, 60);
  EXPECT_EQ(s.hpa.spec.behavior->scaleDown->selectPolicy, "Min");
  EXPECT_EQ(s.hpa.spec.behavior->scaleUp, api::defaultScaleUpRules());
  ASSERT_EQ(s.hpa.spec.behavior->scaleDown->policies->size(), 1u);
  EXPECT_EQ(s.hpa.spec.behavior->scaleDown->policies->front().type, "Percent");
}

TEST(Overrides, PoliciesAsYamlAndRemovalWithNull) {
  auto s = settings("  behavior:\n    scaleUp: {stabilizationWindowSeconds: 30}\n");
  auto status =
      apply(s, {"behavior.scaleUp.policies=[{type: Pods, value: 2, periodSeconds: 60}]",
                "metrics[1]={type: Pods, pods: {metric: {name: rps}, target: {type: AverageValue, "
                "averageValue: 500m}}}"});
  ASSERT_TRUE(status.ok()) << status.error().message;
  const auto& policies = *s.hpa.spec.behavior->scaleUp->policies;
  ASSERT_EQ(policies.size(), 1u);
  EXPECT_EQ(policies[0], (api::HPAScalingPolicy{"Pods", 2, 60}));
  ASSERT_EQ(s.hpa.spec.metrics.size(), 2u);
  EXPECT_EQ(s.hpa.spec.metrics[1].as<api::PodsMetricSource>()->target.averageValue->milliValue(),
            500);

  ASSERT_TRUE(apply(s, {"behavior=null"}).ok());
  EXPECT_FALSE(s.hpa.spec.behavior.has_value());
}

TEST(Overrides, ReplayFlags) {
  auto s = settings();
  auto status = apply(
      s, {"horizontal-pod-autoscaler-tolerance=0.05", "horizontal-pod-autoscaler-sync-period=30s",
          "horizontal-pod-autoscaler-downscale-stabilization=1m", "readiness-delay=5s",
          "metric-window=15s", "horizontal-pod-autoscaler-cpu-initialization-period=2m",
          "horizontal-pod-autoscaler-initial-readiness-delay=10s"});
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(s.options.controller.tolerance, 0.05);
  EXPECT_EQ(s.options.controller.syncPeriod, seconds(30));
  EXPECT_EQ(s.options.controller.downscaleStabilizationWindow, seconds(60));
  EXPECT_EQ(s.options.readinessDelay, seconds(5));
  EXPECT_EQ(s.options.metricWindow, seconds(15));
  EXPECT_EQ(s.options.controller.cpuInitializationPeriod, seconds(120));
  EXPECT_EQ(s.options.controller.delayOfInitialReadinessStatus, seconds(10));

  // The rules of another release, then a gate over them; the other settings stay.
  ASSERT_TRUE(
      apply(s, {"decision-rules=1.34", "feature-gates=HPAConfigurableTolerance=true"}).ok());
  EXPECT_EQ(s.options.controller.decisionRules.minor, 34);
  EXPECT_TRUE(s.options.controller.decisionRules.gates.hpaConfigurableTolerance)
      << "off by default in 1.34";
  EXPECT_EQ(s.options.controller.tolerance, 0.05);
  EXPECT_EQ(s.options.controller.syncPeriod, seconds(30));
}

// An annotation (a control) is set as written, its key after the prefix whole; null removes it.
TEST(Overrides, SetAndRemoveAnnotations) {
  auto s = settings();
  ASSERT_TRUE(apply(s, {"metadata.annotations.hpa-controller.io/forecast={mode: Active, "
                        "margin: 1.1}",
                        "metadata.annotations.hpa-controller.io/paused=ScaleDown"})
                  .ok());
  EXPECT_EQ(s.hpa.metadata.annotations["hpa-controller.io/forecast"],
            "{mode: Active, margin: 1.1}");
  EXPECT_EQ(s.hpa.metadata.annotations["hpa-controller.io/paused"], "ScaleDown");
  ASSERT_TRUE(apply(s, {"metadata.annotations.hpa-controller.io/paused=null"}).ok());
  EXPECT_FALSE(s.hpa.metadata.annotations.contains("hpa-controller.io/paused"));
  EXPECT_EQ(s.hpa.spec.minReplicas, 2) << "the spec is untouched";
}

TEST(Overrides, ErrorsNameTheOverride) {
  EXPECT_EQ(errorOf({"minReplicas"}), "--set minReplicas: expected PATH=VALUE");
  EXPECT_EQ(errorOf({"behavior.scaleDown.stabilisationWindowSeconds=60"}),
            "--set behavior.scaleDown.stabilisationWindowSeconds=60: "
            "spec.behavior.scaleDown.stabilisationWindowSeconds "
            "is not a field of the HorizontalPodAutoscaler spec (or not one the controller reads)");
  EXPECT_EQ(errorOf({"behavior.scaleDown.selectPolicy=Fastest"}),
            "--set behavior.scaleDown.selectPolicy=Fastest: spec.behavior.scaleDown.selectPolicy: "
            "\"Fastest\": must be "
            "Max, Min or Disabled");
  EXPECT_EQ(errorOf({"behavior.scaleUp.stabilizationWindowSeconds=4000"}),
            "--set behavior.scaleUp.stabilizationWindowSeconds=4000: "
            "spec.behavior.scaleUp.stabilizationWindowSeconds: "
            "must be between 0 and 3600");
  EXPECT_EQ(errorOf({"behavior.scaleUp.policies=[{type: Pods, value: 0, periodSeconds: 15}]"}),
            "--set behavior.scaleUp.policies=[{type: Pods, value: 0, periodSeconds: 15}]: "
            "spec.behavior.scaleUp.policies[0].value: must be greater than zero");
  EXPECT_EQ(errorOf({"maxReplicas=1"}),
            "--set maxReplicas=1: spec.maxReplicas: must be greater than or equal to minReplicas");
  EXPECT_EQ(errorOf({"metrics[0].resource.target.averageUtilization=0"}),
            "--set metrics[0].resource.target.averageUtilization=0: "
            "spec.metrics[0].resource.target.averageUtilization: must be greater than 0");
  EXPECT_THAT(errorOf({"minReplicas=few"}),
              ::testing::HasSubstr("--set minReplicas=few: spec.minReplicas: "));
  EXPECT_EQ(errorOf({"metrics[3].type=Pods"}),
            "--set metrics[3].type=Pods: spec.metrics has 1 entries; [3] is past the end (use [1] "
            "to add one)");
  EXPECT_EQ(errorOf({"minReplicas.x=1"}),
            "--set minReplicas.x=1: spec.minReplicas is not an object");
  EXPECT_EQ(errorOf({"metrics[x]=1"}), "--set metrics[x]=1: \"metrics[x]\": [x] is not an index");
  EXPECT_EQ(errorOf({"status.desiredReplicas=3"}),
            "--set status.desiredReplicas=3: only spec fields, annotations and replay flags can be "
            "set");
  EXPECT_EQ(errorOf({"metadata.annotations.=x"}),
            "--set metadata.annotations.=x: no annotation key after metadata.annotations.");
  EXPECT_EQ(errorOf({"horizontal-pod-autoscaler-tolerance=-1"}),
            "--set horizontal-pod-autoscaler-tolerance=-1: invalid value \"-1\" for "
            "--horizontal-pod-autoscaler-tolerance: "
            "must not be negative");
  EXPECT_EQ(errorOf({"decision-rules=1.17"}),
            "--set decision-rules=1.17: invalid value \"1.17\" for --decision-rules: must be auto, "
            "current or a "
            "kube-controller-manager release from 1.18 to 1.37");
  EXPECT_EQ(errorOf({"horizontal-pod-autoscaler-sync-period=0s"}),
            "--set horizontal-pod-autoscaler-sync-period=0s: must be positive");
  EXPECT_THAT(errorOf({"readiness-delay=soon"}),
              ::testing::HasSubstr("--set readiness-delay=soon: "));
}

}  // namespace
}  // namespace hpa::replay
