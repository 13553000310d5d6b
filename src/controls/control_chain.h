#pragma once

#include <memory>
#include <string>
#include <vector>

#include "controls/control.h"
#include "controls/forecast_history.h"
#include "controls/owner_lookup.h"
#include "controls/schedule_cache.h"

namespace hpa::controls {

// Every per-HPA control, called in a fixed order at each point (Envoy's filter chain): the
// reconcile holds one chain and knows no control by name. The order matters where two controls
// touch the same thing: the pause's ScalingActive condition before the invalid values appended
// to its message; the schedule's bounds before the forecast's floor, which keeps within them.
// Long-lived (one per controller); thread-safe for different HPAs.
class ControlChain final : public Control {
 public:
  // `owners` may be null (owner-based pod selection then follows a pod's own controller only);
  // `forecastHistory` too (a forecast then has no history and sets no floor).
  explicit ControlChain(const OwnerLookup* owners, ForecastHistory* forecastHistory = nullptr);

  // The controls' part of a reconcile's report as it starts: the controls `hpa` asks for (never
  // fails: bad values become errors; its schedule is parsed once per change of its text), and
  // whether it holds a decision recorded before (hpa-controller.io/last-decision).
  ControlsReport start(const api::HorizontalPodAutoscaler& hpa);

  void beforeMetrics(ReconcileView& reconcile, MetricsSetup& setup) override;
  void requestsCounted(ReconcileView& reconcile, const CountedRequests& counted) override;
  void metricFailed(ReconcileView& reconcile, FailedMetric& metric) override;
  void metricSucceeded(ReconcileView& reconcile, std::size_t index) override;
  void afterMetrics(ReconcileView& reconcile, bool decided) override;
  void afterProposal(ReconcileView& reconcile, Proposal::Stage stage, Proposal& proposal) override;
  void beforeWrite(ReconcileView& reconcile) override;
  void forget(const std::string& key) override;

 private:
  ScheduleCache schedules_;
  std::vector<std::unique_ptr<Control>> controls_;
};

}  // namespace hpa::controls
