// The schedule control's part of a reconcile: the open windows' bounds replace the HPA's own,
// and the ScalingLimited condition names the window whose bound decided. A window's floor is
// applied to the metrics' proposal before stabilization, as if the metrics had asked for it: the
// history then remembers it, and when the window closes the downscale stabilization window
// brings the size down as after any peak (upstream clamps after stabilization, which would drop
// the size at once).

#include <fmt/format.h>

#include "controller/conditions.h"
#include "controller/reconcile.h"

namespace hpa::controller {
namespace {

constexpr const char* kScheduledMinReplicas = "ScheduledMinReplicas";
constexpr const char* kScheduledMaxReplicas = "ScheduledMaxReplicas";

const ControlsReport::OpenScheduleWindow* openWindow(const ControlsReport::Schedule& s, const std::string& name) {
  for (const auto& w : s.open) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

// The message stays the same while the window is open, so the status is not rewritten each sync.
std::string limitMessage(const ControlsReport::Schedule& s, bool max) {
  const std::string& name = max ? s.maxFrom : s.minFrom;
  const auto* w = openWindow(s, name);
  return fmt::format("the desired replica count is {} the {} replica count {} of schedule window {} (open until {})",
                     max ? "more than" : "less than", max ? "maximum" : "minimum", max ? s.maxReplicas : s.minReplicas,
                     name, w ? formatRFC3339(w->closesAt) : std::string("?"));
}

}  // namespace

void HorizontalController::Reconcile::applySchedule(Decision& d) {
  if (controls_.schedule.empty()) return;
  bounds_ = scheduledBounds(controls_.schedule, d.minReplicas, d.maxReplicas, now_);
  d.minReplicas = bounds_->minReplicas;
  d.maxReplicas = bounds_->maxReplicas;
  ControlsReport::Schedule s;
  for (const auto& open : bounds_->open) {
    s.open.push_back({open.window->name, open.openedAt, open.closesAt, open.window->minReplicas,
                      open.window->maxReplicas});
  }
  s.minReplicas = d.minReplicas;
  s.maxReplicas = d.maxReplicas;
  // A floor above a ceiling was lowered to it: the ceiling's window holds the floor too.
  if (bounds_->raisedMinBy) s.minFrom = bounds_->raisedMinBy->name;
  if (bounds_->loweredMaxBy) s.maxFrom = bounds_->loweredMaxBy->name;
  report_.controls.schedule = std::move(s);
}

bool HorizontalController::Reconcile::holdToScheduleBound(Decision& d, bool aboveMax) {
  if (!report_.controls.schedule) return false;
  auto& s = *report_.controls.schedule;
  const std::string& window = aboveMax ? s.maxFrom : s.minFrom;
  if (window.empty()) return false;
  s.held = true;
  d.reason = fmt::format("Current number of replicas {} the {} of schedule window {}",
                         aboveMax ? "above" : "below", aboveMax ? "maxReplicas" : "minReplicas", window);
  condition(api::kScalingLimited, api::kConditionTrue, aboveMax ? kScheduledMaxReplicas : kScheduledMinReplicas,
            limitMessage(s, aboveMax));
  return true;
}

std::optional<api::HorizontalPodAutoscalerCondition> HorizontalController::Reconcile::holdProposalInWindow(
    Decision& d) {
  if (!report_.controls.schedule) return std::nullopt;
  auto& s = *report_.controls.schedule;
  bool max = false;
  if (!s.minFrom.empty() && d.desiredReplicas < s.minReplicas) {
    d.desiredReplicas = s.minReplicas;
  } else if (!s.maxFrom.empty() && d.desiredReplicas > s.maxReplicas) {
    d.desiredReplicas = s.maxReplicas;
    max = true;
  } else {
    return std::nullopt;
  }
  const std::string& window = max ? s.maxFrom : s.minFrom;
  if (d.desiredReplicas > d.currentReplicas || d.desiredReplicas < d.currentReplicas) {
    d.reason = fmt::format("schedule window {} holds {} at {}", window, max ? "maxReplicas" : "minReplicas",
                           d.desiredReplicas);
  }
  api::HorizontalPodAutoscalerCondition limited;
  limited.type = api::kScalingLimited;
  limited.status = api::kConditionTrue;
  limited.reason = max ? kScheduledMaxReplicas : kScheduledMinReplicas;
  limited.message = limitMessage(s, max);
  return limited;
}

void HorizontalController::Reconcile::settleScheduleLimit(const Decision& d,
                                                          const api::HorizontalPodAutoscalerCondition& limited) {
  auto& s = *report_.controls.schedule;
  const bool max = limited.reason == kScheduledMaxReplicas;
  // Stabilization or a policy may have kept the size elsewhere: then the window did not decide.
  if (d.desiredReplicas != (max ? s.maxReplicas : s.minReplicas)) return;
  s.held = true;
  condition(limited.type, limited.status, limited.reason, limited.message);
}

}  // namespace hpa::controller
