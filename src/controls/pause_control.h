#pragma once

// hpa-controller.io/paused: everything is computed and recorded as usual, only the scale is left
// alone: every update (`true`), or only the updates in one direction (`ScaleUp`, `ScaleDown`).
// A full pause: ScalingActive says so while it lasts; a ScalingPaused event marks the start and a
// ScalingResumed one the end, read from the condition as stored so that a restart or a failover
// does not announce them again. A pause in one direction: the other direction acts as usual; when
// a move in the held direction is held, AbleToScale is True with reason ScaleUpPaused or
// ScaleDownPaused (as ScaleDownStabilized says why a scale-down waits), and an Event of that
// reason marks the start of each hold.

#include "controls/control.h"

namespace hpa::controls {

class PauseControl final : public Control {
 public:
  void afterProposal(ReconcileView& reconcile, Proposal::Stage stage, Proposal& proposal) override;
  void beforeWrite(ReconcileView& reconcile) override;

 private:
  static void heldOneDirection(ReconcileView& reconcile, const Proposal& proposal);
};

}  // namespace hpa::controls
