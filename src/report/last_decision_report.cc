#include "report/last_decision_report.h"

#include <cmath>

#include "report/decision_outcome.h"

namespace hpa::report {
namespace {

using controls::LastDecision;

LastDecision::Metric metricOf(const MetricReport& m) {
  LastDecision::Metric out{m.type,     m.name,       m.error ? m.conditionReason : std::string(),
                           m.proposal, std::nullopt, std::nullopt,
                           m.source};
  if (m.fallback) {
    out.name = m.fallback->metric;
    out.fallbackReplicas = m.fallback->replicas;
  }
  if (m.calculation && m.calculation->readyPodCount > 0) {
    const auto& c = *m.calculation;
    out.pods = std::array<std::int32_t, 4>{c.readyPodCount, c.unreadyPodCount, c.missingPodCount,
                                           c.ignoredPodCount};
  }
  return out;
}

// The forecast as the condition words it: a new value only when a rounded figure changes.
LastDecision::Forecast forecastOf(const controls::ControlsReport::Forecast& f) {
  LastDecision::Forecast out;
  out.mode = controls::forecastModeName(f.mode);
  out.metric = f.metric;
  out.reason = f.reason;
  if (f.value) {
    out.value = controls::roundForecastValue(*f.value);
    out.confidence = controls::roundConfidence(f.confidence);
  }
  // In whole percent, as the condition words it.
  if (f.recentRatio) out.recentRatio = std::round(*f.recentRatio * 100) / 100;
  out.floor = f.floor;
  return out;
}

}  // namespace

std::optional<LastDecision> lastDecisionOf(const ReconcileReport& r) {
  if (r.branch == ReconcileBranch::Deleted) return std::nullopt;
  LastDecision d;
  d.branch = branchName(r.branch);
  d.currentReplicas = r.currentReplicas;
  d.desiredReplicas = r.desiredReplicas;
  d.reason = r.reason;
  d.metrics.reserve(r.metrics.size());
  for (const auto& m : r.metrics) d.metrics.push_back(metricOf(m));
  d.recommendedReplicas = r.metricReplicas;
  if (r.normalization) d.stabilizedReplicas = r.normalization->stabilized;
  d.limitedBy = limitingCondition(r);
  d.pausedScaleTo = r.controls.pausedScaleTo;
  // A pause in one direction is named; a full pause's document stays as it was before them.
  if (d.pausedScaleTo && r.controls.controls.pause != controls::Pause::Both)
    d.paused = controls::pauseName(r.controls.controls.pause);
  // The start-up windows that grouped its pods, where the HPA sets its own.
  const auto& c = r.controls.controls;
  if (c.cpuInitializationPeriod)
    d.cpuInitializationPeriod = formatGoDuration(*c.cpuInitializationPeriod);
  if (c.initialReadinessDelay) d.initialReadinessDelay = formatGoDuration(*c.initialReadinessDelay);
  if (c.withinToleranceKeep != replicacalc::WithinToleranceKeep::Status)
    d.withinToleranceKeep = controls::withinToleranceKeepName(c.withinToleranceKeep);
  // What utilization was measured against, where it is not spec requests.
  if (c.requestsSource != replicacalc::RequestsSource::Spec)
    d.requestsSource = controls::requestsSourceName(c.requestsSource);
  if (r.controls.forecast) d.forecast = forecastOf(*r.controls.forecast);
  return d;
}

std::optional<nlohmann::json> lastDecisionDocument(const ReconcileReport& r, Time now) {
  auto d = lastDecisionOf(r);
  if (!d) return std::nullopt;
  return controls::lastDecisionJson(*d, now);
}

}  // namespace hpa::report
