#pragma once

// The controls that change how a reconcile reads its metrics: its own sync period (metrics no
// older than half of it), owner-based pod selection (KEP-5325: only pods whose controller chain
// leads to the scale target count), the requests source (the requests a utilization counts:
// as in spec, or as actuated by an in-place resize) and the start-up windows (which pods count
// as not yet initialized or ready) and the metrics' sources (where each metric is read from).

#include "controls/control.h"
#include "controls/owner_lookup.h"

namespace hpa::controls {

// hpa-controller.io/pod-selection: OwnerReferences.
class OwnedPodFilter final : public PodFilter {
 public:
  // Without `owners` only a pod's own controller can match the target (Pod -> StatefulSet,
  // Pod -> ReplicaSet), not a chain.
  explicit OwnedPodFilter(const OwnerLookup* owners) : owners_(owners) {}
  // Records each pod that does not count in the report (podsNotOwned).
  Result<bool> counts(ReconcileView& reconcile, const api::Pod& pod) const override;

 private:
  Result<bool> controlledByTarget(const api::HorizontalPodAutoscaler& hpa,
                                  const api::Pod& pod) const;
  const OwnerLookup* owners_;
};

class MetricReadingControl final : public Control {
 public:
  explicit MetricReadingControl(const OwnerLookup* owners) : ownedPods_(owners) {}
  void beforeMetrics(ReconcileView& reconcile, MetricsSetup& setup) override;
  // Notes, for explain, the pods being resized in place: where the requests source matters. Every
  // HPA gets the note (one that counts spec requests while its pods resize is told so).
  void requestsCounted(ReconcileView& reconcile, const CountedRequests& counted) override;

 private:
  OwnedPodFilter ownedPods_;
};

}  // namespace hpa::controls
