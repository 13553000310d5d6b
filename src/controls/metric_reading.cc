#include "controls/metric_reading.h"

#include <fmt/format.h>

#include <algorithm>

namespace hpa::controls {
namespace {

// Pod -> ReplicaSet -> Deployment is the longest chain of the built-in kinds; a few more levels
// allow for operators that own Deployments, while a cycle of owners cannot loop.
constexpr int kMaxOwnerChain = 5;

}  // namespace

Result<bool> OwnedPodFilter::controlledByTarget(const api::HorizontalPodAutoscaler& hpa,
                                                const api::Pod& pod) const {
  const auto& target = hpa.spec.scaleTargetRef;
  std::optional<api::PodOwner> owner = pod.controller;
  for (int depth = 0; owner && depth < kMaxOwnerChain; ++depth) {
    if (owner->kind == target.kind && owner->name == target.name) return true;
    if (!owners_) return false;
    auto up = owners_->controllerOf(hpa.metadata.namespace_, owner->kind, owner->name);
    if (!up.ok()) return up.error();
    owner =
        *up ? std::optional<api::PodOwner>(api::PodOwner{(*up)->kind, (*up)->name}) : std::nullopt;
  }
  return false;
}

Result<bool> OwnedPodFilter::counts(ReconcileView& reconcile, const api::Pod& pod) const {
  auto owned = controlledByTarget(reconcile.hpa(), pod);
  if (!owned.ok())
    return owned.error().wrap(fmt::format("resolving the owners of pod {}", pod.name));
  if (!*owned) {
    auto& notOwned = reconcile.controlsReport().podsNotOwned;
    if (std::find(notOwned.begin(), notOwned.end(), pod.name) == notOwned.end())
      notOwned.push_back(pod.name);
  }
  return *owned;
}

void MetricReadingControl::requestsCounted(ReconcileView& reconcile,
                                           const CountedRequests& counted) {
  auto& noted = reconcile.controlsReport().resizingPods;
  for (const api::Pod* pod : counted.pods) {
    if (!replicacalc::resizeInProgress(*pod, counted.container, counted.resource)) continue;
    auto spec = replicacalc::podRequest(*pod, counted.container, counted.resource,
                                        replicacalc::RequestsSource::Spec, counted.rules);
    auto actuated = replicacalc::podRequest(*pod, counted.container, counted.resource,
                                            replicacalc::RequestsSource::Actuated, counted.rules);
    if (!spec.ok() || !actuated.ok()) continue;
    ControlsReport::ResizingPod entry{pod->name, counted.resource, *spec, *actuated};
    if (std::find(noted.begin(), noted.end(), entry) == noted.end())
      noted.push_back(std::move(entry));
  }
}

void MetricReadingControl::beforeMetrics(ReconcileView& reconcile, MetricsSetup& setup) {
  const HpaControls& controls = reconcile.controls();
  if (controls.syncPeriod) setup.metricsMaxAge = *controls.syncPeriod / 2;
  setup.requestsSource = controls.requestsSource;
  if (controls.podSelection == PodSelection::OwnerReferences) setup.podFilter = &ownedPods_;
  setup.cpuInitializationPeriod = controls.cpuInitializationPeriod;
  setup.initialReadinessDelay = controls.initialReadinessDelay;
  setup.withinToleranceKeep = controls.withinToleranceKeep;
  setup.metricRoutes = controls.metricRoutes;
}

}  // namespace hpa::controls
