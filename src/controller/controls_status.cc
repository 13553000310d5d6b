// The per-HPA controls' part of a reconcile's status and events: the pause condition with its
// ScalingPaused / ScalingResumed events, and invalid control values carried in the
// ScalingActive message with one Warning event per change.

#include <fmt/format.h>

#include "controller/conditions.h"
#include "controller/reconcile.h"

namespace hpa::controller {
namespace {

constexpr const char* kScalingPaused = "ScalingPaused";
constexpr const char* kScalingResumed = "ScalingResumed";
// Appended to the ScalingActive message while some control value is invalid; upstream's
// messages never contain it, so it can be found and replaced.
constexpr std::string_view kInvalidControlsMarker = "; invalid controls: ";

api::HorizontalPodAutoscalerCondition* findMutable(api::HorizontalPodAutoscalerStatus& status, const std::string& type) {
  for (auto& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

std::string withoutControlErrors(const std::string& message) {
  auto at = message.find(kInvalidControlsMarker);
  return at == std::string::npos ? message : message.substr(0, at);
}

}  // namespace

std::string HorizontalController::controlErrorsReported(const std::string& key, const std::string& text) {
  std::lock_guard<std::mutex> lock(controlErrorsMu_);
  auto it = controlErrorsReported_.find(key);
  std::string before = it == controlErrorsReported_.end() ? std::string() : it->second;
  if (text.empty()) {
    if (it != controlErrorsReported_.end()) controlErrorsReported_.erase(it);
  } else {
    controlErrorsReported_[key] = text;
  }
  return before;
}

void HorizontalController::Reconcile::applyControlsToStatus() {
  // Pause transitions are read from the condition as stored, so a restart or a failover does
  // not announce them again.
  const auto* before = findCondition(originalStatus_, api::kScalingActive);
  const bool wasPaused = before && before->reason == kScalingPaused;
  if (controls_.paused) {
    condition(api::kScalingActive, api::kConditionFalse, kScalingPaused,
              fmt::format("scaling is paused by the {} annotation: the HPA computes its desired replica count but "
                          "does not update the target's scale",
                          kPausedAnnotation));
    if (!wasPaused) {
      report_.controls.pauseStarted = true;
      event(kEventNormal, kScalingPaused,
            fmt::format("Scaling paused ({}: true): metrics are still computed, the target's scale is left as is",
                        kPausedAnnotation));
    }
  } else if (wasPaused) {
    report_.controls.pauseEnded = true;
    event(kEventNormal, kScalingResumed,
          fmt::format("Scaling resumed ({} removed or false)", kPausedAnnotation));
    // Branches that leave ScalingActive alone (above max, below min, failed get scale) would
    // otherwise keep showing the pause.
    const auto* now = findCondition(hpa_.status, api::kScalingActive);
    if (now && now->reason == kScalingPaused) {
      condition(api::kScalingActive, api::kConditionTrue, kScalingResumed,
                fmt::format("scaling resumed: the {} annotation is no longer true", kPausedAnnotation));
    }
  }

  const std::string errors = controls_.errorText();
  if (auto* active = findMutable(hpa_.status, api::kScalingActive)) {
    active->message = withoutControlErrors(active->message);
    if (!errors.empty()) active->message += std::string(kInvalidControlsMarker) + errors;
  }
  // One Warning per change of the invalid values: remembered per HPA, and read from the
  // stored condition after a restart.
  const std::string previouslyReported = c_.controlErrorsReported(key_, errors);
  if (errors.empty() || previouslyReported == errors) return;
  const std::string alreadyStored = std::string(kInvalidControlsMarker) + errors;
  if (before && before->message.size() >= alreadyStored.size() &&
      before->message.compare(before->message.size() - alreadyStored.size(), alreadyStored.size(), alreadyStored) == 0) {
    return;
  }
  for (const auto& e : controls_.errors) event(kEventWarning, e.reason, e.message);
}

}  // namespace hpa::controller
