#pragma once

// The schedule control's part of a reconcile: the open windows' bounds replace the HPA's own,
// and the ScalingLimited condition names the window whose bound decided. A window's floor is
// applied to the metrics' proposal before stabilization, as if the metrics had asked for it: the
// history then remembers it, and when the window closes the downscale stabilization window
// brings the size down as after any peak (upstream clamps after stabilization, which would drop
// the size at once).

#include "controls/control.h"

namespace hpa::controls {

class ScheduleControl final : public Control {
 public:
  void beforeMetrics(ReconcileView& reconcile, MetricsSetup& setup) override;
  void afterProposal(ReconcileView& reconcile, Proposal::Stage stage, Proposal& proposal) override;

 private:
  // Outside the metrics path: the reason and condition of a window's bound, when a window's bound
  // (not the HPA's own) is the one the current size is outside of.
  static void holdToBound(ReconcileView& reconcile, Proposal& proposal);
  // The metrics' proposal held within an open window's bounds before stabilization; the bound's
  // ScalingLimited condition waits in proposal.limit for normalization's verdict.
  static void holdInWindow(ReconcileView& reconcile, Proposal& proposal);
  // After normalization: the window's condition, when its bound is the size decided.
  static void settleLimit(ReconcileView& reconcile, const Proposal& proposal);
};

}  // namespace hpa::controls
