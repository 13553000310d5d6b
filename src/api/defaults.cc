#include "api/defaults.h"

namespace hpa::api {
namespace {

// pkg/apis/autoscaling/v2/defaults.go: both policies of a direction share a 15 s period.
constexpr std::int32_t kDefaultPolicyPeriodSeconds = 15;
constexpr std::int32_t kDefaultScaleUpPods = 4;
constexpr std::int32_t kDefaultPercent = 100;

HPAScalingRules merge(HPAScalingRules defaults, const std::optional<HPAScalingRules>& user) {
  if (!user) return defaults;
  if (user->selectPolicy) defaults.selectPolicy = user->selectPolicy;
  if (user->stabilizationWindowSeconds)
    defaults.stabilizationWindowSeconds = user->stabilizationWindowSeconds;
  if (user->policies && !user->policies->empty()) defaults.policies = user->policies;
  if (user->tolerance) defaults.tolerance = user->tolerance;
  return defaults;
}

}  // namespace

HPAScalingRules defaultScaleUpRules() {
  HPAScalingRules rules;
  rules.stabilizationWindowSeconds = 0;
  rules.selectPolicy = kMaxChangePolicySelect;
  rules.policies = std::vector<HPAScalingPolicy>{
      {kPodsScalingPolicy, kDefaultScaleUpPods, kDefaultPolicyPeriodSeconds},
      {kPercentScalingPolicy, kDefaultPercent, kDefaultPolicyPeriodSeconds},
  };
  return rules;
}

HPAScalingRules defaultScaleDownRules() {
  HPAScalingRules rules;
  rules.selectPolicy = kMaxChangePolicySelect;
  rules.policies = std::vector<HPAScalingPolicy>{
      {kPercentScalingPolicy, kDefaultPercent, kDefaultPolicyPeriodSeconds},
  };
  return rules;
}

HPAScalingRules defaultedScaleUpRules(const std::optional<HPAScalingRules>& user) {
  return merge(defaultScaleUpRules(), user);
}

HPAScalingRules defaultedScaleDownRules(const std::optional<HPAScalingRules>& user) {
  return merge(defaultScaleDownRules(), user);
}

void applyBehaviorDefaults(std::optional<HorizontalPodAutoscalerBehavior>& behavior) {
  if (!behavior) return;
  behavior->scaleUp = defaultedScaleUpRules(behavior->scaleUp);
  behavior->scaleDown = defaultedScaleDownRules(behavior->scaleDown);
}

void applyDefaults(HorizontalPodAutoscalerSpec& spec) {
  if (spec.metrics.empty()) {
    spec.metrics.push_back(MetricSpec{ResourceMetricSource{
        "cpu",
        MetricTarget{kUtilizationTarget, std::nullopt, std::nullopt, kDefaultCPUUtilization}}});
  }
  applyBehaviorDefaults(spec.behavior);
}

}  // namespace hpa::api
