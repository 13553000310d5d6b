#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/hpa.h"
#include "common/result.h"
#include "replay/replay.h"

namespace hpa::replay {

// What one replay run is made of: the HPA and the controller's and simulation's settings.
struct RunSettings {
  api::HorizontalPodAutoscaler hpa;
  ReplayOptions options;
};

// One `--set PATH=VALUE`. PATH is either a field of the HPA's spec in its wire form
// (`behavior.scaleDown.stabilizationWindowSeconds`,
// `metrics[0].resource.target.averageUtilization`, `minReplicas`; a leading `spec.` is allowed) or
// the name of a replay flag: a decision flag (controller/decision_flags.h:
// `horizontal-pod-autoscaler-tolerance`, the downscale stabilization, cpu initialization period and
// initial readiness delay, `decision-rules` with that release's default gates, `feature-gates` over
// the rules set so far), checked as the flag, or `horizontal-pod-autoscaler-sync-period`,
// `readiness-delay`, `metric-window`, `reconcile-duration`. VALUE is YAML: `60`, `Min`, `500m`,
// `[{type: Pods, value: 4, periodSeconds: 60}]`, `null` (removes the field).
struct Override {
  std::string path;
  std::string value;
  std::string text;  // as given, for messages
};
Result<Override> parseOverride(std::string_view text);

// Applies the overrides in order. Spec fields go through the HPA's JSON form and its decoder
// (which applies the API server's defaults, so setting one field of an absent `behavior` gives
// a defaulted behavior, as `kubectl apply` would), then through the API server's validation of
// the fields an override can break (min/max replicas, behavior rules and policies, targets).
// Errors name the override.
Status applyOverrides(RunSettings& settings, const std::vector<Override>& overrides);

// The API server's validation of the spec fields overrides touch (autoscaling validation.go):
// the first violation, naming the field.
Status validateSpec(const api::HorizontalPodAutoscalerSpec& spec);

}  // namespace hpa::replay
