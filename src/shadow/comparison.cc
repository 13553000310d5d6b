#include "shadow/comparison.h"

#include <fmt/format.h>

namespace hpa::shadow {
namespace {

std::string conditionOf(const api::HorizontalPodAutoscalerStatus& status, const char* type) {
  const auto* condition = api::findCondition(status, type);
  return condition ? conditionText(condition->status, condition->reason) : std::string();
}

}  // namespace

std::string conditionText(std::string_view status, std::string_view reason) {
  std::string text;
  text.reserve(status.size() + 1 + reason.size());
  return text.append(status).append("/").append(reason);
}

std::string_view reasonOf(std::string_view conditionText) {
  const auto slash = conditionText.find('/');
  return slash == std::string_view::npos ? std::string_view() : conditionText.substr(slash + 1);
}

StatusDecision decisionOf(const api::HorizontalPodAutoscalerStatus& status) {
  return StatusDecision{
      status.currentReplicas, status.desiredReplicas, conditionOf(status, api::kAbleToScale),
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

bool statusRewritten(const api::HorizontalPodAutoscaler& before,
                     const api::HorizontalPodAutoscaler& after) {
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
