#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/hpa.h"

namespace hpa::shadow {

// A decision as an HPA's status records it: what kube-controller-manager wrote, or what this
// controller would have written. Conditions are "Status/Reason" ("True/ScaleDownStabilized"),
// empty when the condition is absent.
struct StatusDecision {
  std::int32_t currentReplicas = 0;
  std::int32_t desiredReplicas = 0;
  std::string ableToScale;
  std::string scalingActive;
  std::string scalingLimited;
  bool operator==(const StatusDecision&) const = default;
};

StatusDecision decisionOf(const api::HorizontalPodAutoscalerStatus& status);

// A condition as StatusDecision holds it: "True/ScaleDownStabilized".
std::string conditionText(std::string_view status, std::string_view reason);
// The reason part of a condition's text ("" when the condition is absent).
std::string_view reasonOf(std::string_view conditionText);

// What can differ between two decisions, one label value each in /metrics.
enum class DivergenceKind { DesiredReplicas, AbleToScale, ScalingActive, ScalingLimited };
const char* kindName(DivergenceKind kind);

struct Divergence {
  DivergenceKind kind;
  std::string theirs;  // kube-controller-manager's
  std::string ours;
  bool operator==(const Divergence&) const = default;
};

// The fields in which `ours` differs from `theirs` (empty: they agree). The current replica count
// is an input, not a decision, and is not compared.
std::vector<Divergence> compare(const StatusDecision& theirs, const StatusDecision& ours);

// Whether `after` is a new status written over `before` (a decision another controller made):
// any change of the status, as upstream writes it only when it changed.
bool statusRewritten(const api::HorizontalPodAutoscaler& before,
                     const api::HorizontalPodAutoscaler& after);

// "desiredReplicas 4 (ours 5), ScalingLimited True/ScaleUpLimit (ours False/DesiredWithinRange)".
std::string describe(const std::vector<Divergence>& divergences);

}  // namespace hpa::shadow
