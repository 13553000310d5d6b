#pragma once

// hpa-controller.io/paused: everything is computed and recorded as usual, only the scale is left
// alone. ScalingActive says so while it lasts; a ScalingPaused event marks the start and a
// ScalingResumed one the end, read from the condition as stored so that a restart or a failover
// does not announce them again.

#include "controls/control.h"

namespace hpa::controls {

class PauseControl final : public Control {
 public:
  void afterProposal(ReconcileView& reconcile, Proposal::Stage stage, Proposal& proposal) override;
  void beforeWrite(ReconcileView& reconcile) override;
};

}  // namespace hpa::controls
