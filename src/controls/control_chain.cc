#include "controls/control_chain.h"

#include "controls/fallback_control.h"
#include "controls/forecast_control.h"
#include "controls/invalid_controls.h"
#include "controls/last_decision.h"
#include "controls/metric_reading.h"
#include "controls/pause_control.h"
#include "controls/schedule_control.h"

namespace hpa::controls {

ControlChain::ControlChain(const OwnerLookup* owners, ForecastHistory* forecastHistory) {
  controls_.push_back(std::make_unique<MetricReadingControl>(owners));
  controls_.push_back(std::make_unique<ScheduleControl>());
  controls_.push_back(std::make_unique<ForecastControl>(forecastHistory));
  controls_.push_back(std::make_unique<FallbackControl>());
  controls_.push_back(std::make_unique<PauseControl>());
  controls_.push_back(std::make_unique<InvalidControls>());
}

ControlsReport ControlChain::start(const api::HorizontalPodAutoscaler& hpa) {
  ControlsReport report;
  report.controls = parseControls(hpa, &schedules_);
  report.lastDecisionStored = hpa.metadata.annotations.contains(kLastDecisionAnnotation);
  return report;
}

void ControlChain::beforeMetrics(ReconcileView& reconcile, MetricsSetup& setup) {
  for (auto& c : controls_) c->beforeMetrics(reconcile, setup);
}

void ControlChain::requestsCounted(ReconcileView& reconcile, const CountedRequests& counted) {
  for (auto& c : controls_) c->requestsCounted(reconcile, counted);
}

void ControlChain::metricFailed(ReconcileView& reconcile, FailedMetric& metric) {
  for (auto& c : controls_) c->metricFailed(reconcile, metric);
}

void ControlChain::metricSucceeded(ReconcileView& reconcile, std::size_t index) {
  for (auto& c : controls_) c->metricSucceeded(reconcile, index);
}

void ControlChain::afterMetrics(ReconcileView& reconcile, bool decided) {
  for (auto& c : controls_) c->afterMetrics(reconcile, decided);
}

void ControlChain::afterProposal(ReconcileView& reconcile, Proposal::Stage stage,
                                 Proposal& proposal) {
  for (auto& c : controls_) c->afterProposal(reconcile, stage, proposal);
}

void ControlChain::beforeWrite(ReconcileView& reconcile) {
  for (auto& c : controls_) c->beforeWrite(reconcile);
}

void ControlChain::forget(const std::string& key) {
  schedules_.erase(key);
  for (auto& c : controls_) c->forget(key);
}

}  // namespace hpa::controls
