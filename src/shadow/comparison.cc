#include "shadow/comparison.h"

#include <fmt/format.h>

#include "controller/conditions.h"

namespace hpa::shadow {
namespace {

std::string conditionOf(const api::HorizontalPodAutoscalerStatus& status, const char* type) {
  const auto* condition = api::findCondition(status, type);
  return condition ? condition->status + "/" + condition->reason : std::string();
}

}  // namespace

StatusDecision decisionOf(const api::HorizontalPodAutoscalerStatus& status) {
  return StatusDecision{status.currentReplicas, status.desiredReplicas, conditionOf(status, api::kAbleToScale),
                        conditionOf(status, api::kScalingActive), conditionOf(status, api::kScalingLimited)};
}

const char* kindName(DivergenceKind kind) {
  switch (kind) {
    case DivergenceKind::DesiredReplicas:
      return "desiredReplicas";
    case DivergenceKind::AbleToScale:
      return api::kAbleToScale;
    case DivergenceKind::ScalingActive:
      return api::kScalingActive;
    case DivergenceKind::ScalingLimited:
      return api::kScalingLimited;
  }
  return "unknown";
}

std::vector<Divergence> compare(const StatusDecision& theirs, const StatusDecision& ours) {
  std::vector<Divergence> out;
  if (theirs.desiredReplicas != ours.desiredReplicas) {
    out.push_back({DivergenceKind::DesiredReplicas, std::to_string(theirs.desiredReplicas),
                   std::to_string(ours.desiredReplicas)});
  }
  const std::pair<DivergenceKind, std::string StatusDecision::*> conditions[] = {
      {DivergenceKind::AbleToScale, &StatusDecision::ableToScale},
      {DivergenceKind::ScalingActive, &StatusDecision::scalingActive},
      {DivergenceKind::ScalingLimited, &StatusDecision::scalingLimited}};
  for (const auto& [kind, field] : conditions) {
    if (theirs.*field != ours.*field) out.push_back({kind, theirs.*field, ours.*field});
  }
  return out;
}

bool statusRewritten(const api::HorizontalPodAutoscaler& before, const api::HorizontalPodAutoscaler& after) {
  return !(before.status == after.status);
}

std::string describe(const std::vector<Divergence>& divergences) {
  std::string out;
  for (const auto& d : divergences) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {} (ours {})", kindName(d.kind), d.theirs.empty() ? "absent" : d.theirs,
                       d.ours.empty() ? "absent" : d.ours);
  }
  return out;
}

}  // namespace hpa::shadow
