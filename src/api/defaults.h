#pragma once

#include "api/hpa.h"

namespace hpa::api {

// Defaulting the API server applies to autoscaling/v2 objects
// (pkg/apis/autoscaling/v2/defaults.go). Objects read from a server are already defaulted; objects
// from files may not be, and the controller must decide the same either way.

// Upstream's default scale-up rules: {Pods 4 / 15 s, Percent 100 / 15 s}, selectPolicy Max,
// stabilization window 0.
HPAScalingRules defaultScaleUpRules();
// Upstream's default scale-down rules: {Percent 100 / 15 s}, selectPolicy Max, window unset
// (the controller substitutes --horizontal-pod-autoscaler-downscale-stabilization).
HPAScalingRules defaultScaleDownRules();

// Starts from the default rules of the direction and copies every field the user set
// (selectPolicy, stabilizationWindowSeconds, policies as a whole list when non-empty, tolerance).
HPAScalingRules defaultedScaleUpRules(const std::optional<HPAScalingRules>& user);
HPAScalingRules defaultedScaleDownRules(const std::optional<HPAScalingRules>& user);

// Fills both directions of a behavior that is set; leaves an unset behavior unset.
void applyBehaviorDefaults(std::optional<HorizontalPodAutoscalerBehavior>& behavior);

// minReplicas stays as read (the controller treats unset as 1); empty metrics become the
// default CPU utilization 80 % metric; behavior is defaulted as above.
void applyDefaults(HorizontalPodAutoscalerSpec& spec);

// Upstream's default when spec.metrics is empty: Resource cpu, Utilization 80 %.
inline constexpr std::int32_t kDefaultCPUUtilization = 80;

}  // namespace hpa::api
