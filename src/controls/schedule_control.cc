#include "controls/schedule_control.h"

#include <fmt/format.h>

#include "controls/schedule.h"

namespace hpa::controls {
namespace {

const ControlsReport::OpenScheduleWindow* openWindow(const ControlsReport::Schedule& s,
                                                     const std::string& name) {
  for (const auto& w : s.open) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

// The message stays the same while the window is open, so the status is not rewritten each sync.
std::string limitMessage(const ControlsReport::Schedule& s, bool max) {
  const std::string& name = max ? s.maxFrom : s.minFrom;
  const auto* w = openWindow(s, name);
  return fmt::format(
      "the desired replica count is {} the {} replica count {} of schedule window {} (open until "
      "{})",
      max ? "more than" : "less than", max ? "maximum" : "minimum",
      max ? s.maxReplicas : s.minReplicas, name, w ? formatRFC3339(w->closesAt) : std::string("?"));
}

}  // namespace

void ScheduleControl::beforeMetrics(ReconcileView& reconcile, MetricsSetup& setup) {
  const auto& windows = reconcile.controls().schedule;
  if (windows.empty()) return;
  const ScheduledBounds bounds =
      scheduledBounds(windows, setup.minReplicas, setup.maxReplicas, reconcile.now());
  setup.minReplicas = bounds.minReplicas;
  setup.maxReplicas = bounds.maxReplicas;
  ControlsReport::Schedule s;
  for (const auto& open : bounds.open) {
    s.open.push_back({open.window->name, open.openedAt, open.closesAt, open.window->minReplicas,
                      open.window->maxReplicas});
  }
  s.minReplicas = setup.minReplicas;
  s.maxReplicas = setup.maxReplicas;
  // A floor above a ceiling was lowered to it: the ceiling's window holds the floor too.
  if (bounds.raisedMinBy) s.minFrom = bounds.raisedMinBy->name;
  if (bounds.loweredMaxBy) s.maxFrom = bounds.loweredMaxBy->name;
  reconcile.controlsReport().schedule = std::move(s);
}

void ScheduleControl::afterProposal(ReconcileView& reconcile, Proposal::Stage stage,
                                    Proposal& proposal) {
  if (!reconcile.controlsReport().schedule) return;
  switch (stage) {
    case Proposal::Stage::OutsideBounds:
      holdToBound(reconcile, proposal);
      return;
    case Proposal::Stage::FromMetrics:
      holdInWindow(reconcile, proposal);
      return;
    case Proposal::Stage::Normalized:
      settleLimit(reconcile, proposal);
      return;
    case Proposal::Stage::BeforeRescale:
      return;
  }
}

void ScheduleControl::holdToBound(ReconcileView& reconcile, Proposal& proposal) {
  auto& s = *reconcile.controlsReport().schedule;
  const bool aboveMax = proposal.aboveMax;
  const std::string& window = aboveMax ? s.maxFrom : s.minFrom;
  if (window.empty()) return;
  s.held = true;
  proposal.reason =
      fmt::format("Current number of replicas {} the {} of schedule window {}",
                  aboveMax ? "above" : "below", aboveMax ? "maxReplicas" : "minReplicas", window);
  reconcile.condition(api::kScalingLimited, api::kConditionTrue,
                      aboveMax ? api::kScheduledMaxReplicas : api::kScheduledMinReplicas,
                      limitMessage(s, aboveMax));
}

void ScheduleControl::holdInWindow(ReconcileView& reconcile, Proposal& proposal) {
  const auto& s = *reconcile.controlsReport().schedule;
  bool max = false;
  if (!s.minFrom.empty() && proposal.desiredReplicas < s.minReplicas) {
    proposal.desiredReplicas = s.minReplicas;
  } else if (!s.maxFrom.empty() && proposal.desiredReplicas > s.maxReplicas) {
    proposal.desiredReplicas = s.maxReplicas;
    max = true;
  } else {
    return;
  }
  const std::string& window = max ? s.maxFrom : s.minFrom;
  if (proposal.desiredReplicas != proposal.currentReplicas) {
    proposal.reason = fmt::format("schedule window {} holds {} at {}", window,
                                  max ? "maxReplicas" : "minReplicas", proposal.desiredReplicas);
  }
  api::HorizontalPodAutoscalerCondition limited;
  limited.type = api::kScalingLimited;
  limited.status = api::kConditionTrue;
  limited.reason = max ? api::kScheduledMaxReplicas : api::kScheduledMinReplicas;
  limited.message = limitMessage(s, max);
  proposal.limit = Proposal::Limit{max ? s.maxReplicas : s.minReplicas, std::move(limited)};
}

void ScheduleControl::settleLimit(ReconcileView& reconcile, const Proposal& proposal) {
  // Stabilization or a policy may have kept the size elsewhere, or a later control's bound (the
  // forecast's floor) replaced the window's: then the window did not decide.
  if (!proposal.limit || proposal.desiredReplicas != proposal.limit->replicas) return;
  const auto& reason = proposal.limit->condition.reason;
  if (reason != api::kScheduledMinReplicas && reason != api::kScheduledMaxReplicas) return;
  reconcile.controlsReport().schedule->held = true;
  const auto& c = proposal.limit->condition;
  reconcile.condition(c.type, c.status, c.reason, c.message);
}

}  // namespace hpa::controls
