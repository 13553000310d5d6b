#include "controls/pause_control.h"

#include <fmt/format.h>

namespace hpa::controls {

void PauseControl::afterProposal(ReconcileView& reconcile, Proposal::Stage stage,
                                 Proposal& proposal) {
  if (stage != Proposal::Stage::BeforeRescale || !proposal.rescale || !reconcile.controls().paused)
    return;
  proposal.rescaleHeld = true;
  proposal.rescale = false;
  reconcile.controlsReport().pausedScaleTo = proposal.desiredReplicas;
  reconcile.logger().v(2, "Paused: not updating the scale", "HPA", reconcile.key(),
                       "currentReplicas", proposal.currentReplicas, "desiredReplicas",
                       proposal.desiredReplicas, "reason", proposal.reason);
}

void PauseControl::beforeWrite(ReconcileView& reconcile) {
  const auto* before = reconcile.conditionRead(api::kScalingActive);
  const bool wasPaused = before && before->reason == api::kScalingPaused;
  if (reconcile.controls().paused) {
    reconcile.condition(
        api::kScalingActive, api::kConditionFalse, api::kScalingPaused,
        fmt::format("scaling is paused by the {} annotation: the HPA computes its desired replica "
                    "count but does not update the target's scale",
                    kPausedAnnotation));
    if (!wasPaused) {
      reconcile.controlsReport().pauseStarted = true;
      reconcile.normalEvent(
          api::kScalingPaused,
          fmt::format("Scaling paused ({}: true): metrics are still computed, the target's scale "
                      "is left as is",
                      kPausedAnnotation));
    }
  } else if (wasPaused) {
    reconcile.controlsReport().pauseEnded = true;
    reconcile.normalEvent(api::kScalingResumed,
                          fmt::format("Scaling resumed ({} removed or false)", kPausedAnnotation));
    // Branches that leave ScalingActive alone (above max, below min, failed get scale) would
    // otherwise keep showing the pause.
    const auto* now = reconcile.conditionNow(api::kScalingActive);
    if (now && now->reason == api::kScalingPaused) {
      reconcile.condition(
          api::kScalingActive, api::kConditionTrue, api::kScalingResumed,
          fmt::format("scaling resumed: the {} annotation is no longer true", kPausedAnnotation));
    }
  }
}

}  // namespace hpa::controls
