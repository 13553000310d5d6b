#include "controls/pause_control.h"

#include <fmt/format.h>

namespace hpa::controls {
namespace {

const char* heldReason(Pause pause) {
  return pause == Pause::ScaleUp ? api::kScaleUpPaused : api::kScaleDownPaused;
}

const char* heldWord(Pause pause) { return pause == Pause::ScaleUp ? "scale-up" : "scale-down"; }
const char* liveWord(Pause pause) { return pause == Pause::ScaleUp ? "scale-down" : "scale-up"; }
// The start of an Event's message.
const char* heldTitle(Pause pause) { return pause == Pause::ScaleUp ? "Scale-up" : "Scale-down"; }

}  // namespace

void PauseControl::afterProposal(ReconcileView& reconcile, Proposal::Stage stage,
                                 Proposal& proposal) {
  const Pause pause = reconcile.controls().pause;
  if (stage != Proposal::Stage::BeforeRescale || !proposal.rescale ||
      !pauseHolds(pause, proposal.currentReplicas, proposal.desiredReplicas))
    return;
  proposal.rescaleHeld = true;
  proposal.rescale = false;
  reconcile.controlsReport().pausedScaleTo = proposal.desiredReplicas;
  reconcile.logger().v(2, "Paused: not updating the scale", "HPA", reconcile.key(), "paused",
                       pauseName(pause), "currentReplicas", proposal.currentReplicas,
                       "desiredReplicas", proposal.desiredReplicas, "reason", proposal.reason);
  if (pause != Pause::Both) heldOneDirection(reconcile, proposal);
}

void PauseControl::heldOneDirection(ReconcileView& reconcile, const Proposal& proposal) {
  const Pause pause = reconcile.controls().pause;
  const char* reason = heldReason(pause);
  reconcile.condition(
      api::kAbleToScale, api::kConditionTrue, reason,
      fmt::format("{} is paused by the {} annotation ({}): the HPA would scale from {} to {} "
                  "replicas; {} stays live",
                  heldWord(pause), kPausedAnnotation, pauseName(pause), proposal.currentReplicas,
                  proposal.desiredReplicas, liveWord(pause)));
  // One Event per hold, read from the condition as stored (a restart does not repeat it).
  const auto* before = reconcile.conditionRead(api::kAbleToScale);
  if (before && before->reason == reason) return;
  reconcile.normalEvent(
      reason,
      fmt::format("{} held ({}: {}): would scale from {} to {} replicas ({}); {} stays live",
                  heldTitle(pause), kPausedAnnotation, pauseName(pause), proposal.currentReplicas,
                  proposal.desiredReplicas, proposal.reason, liveWord(pause)));
}

void PauseControl::beforeWrite(ReconcileView& reconcile) {
  const auto* before = reconcile.conditionRead(api::kScalingActive);
  const bool wasPaused = before && before->reason == api::kScalingPaused;
  const Pause pause = reconcile.controls().pause;
  if (pause == Pause::Both) {
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
    reconcile.normalEvent(
        api::kScalingResumed,
        pause == Pause::None
            ? fmt::format("Scaling resumed ({} removed or false)", kPausedAnnotation)
            : fmt::format("Scaling resumed in one direction ({}: {}): {} stays paused",
                          kPausedAnnotation, pauseName(pause), heldWord(pause)));
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
