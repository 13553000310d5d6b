#include "report/decision_summary.h"

#include <fmt/format.h>

#include "report/decision_outcome.h"

namespace hpa::report {
namespace {

std::string eventMessage(const ReconcileReport& r, const std::string& reason) {
  for (const auto& e : r.events) {
    if (e.reason == reason) return e.message;
  }
  return "";
}

// Why the size is not the metrics' proposal (limitingCondition), in a few words: the bound, the
// window or the limit that held it.
std::string normalizationWhy(const ReconcileReport& r) {
  const auto limited = limitingCondition(r);
  if (!limited) return "";
  const std::string& reason = limited->first;
  const auto& n = *r.normalization;
  if (reason == api::kTooManyReplicas || reason == api::kScheduledMaxReplicas) {
    return fmt::format("{} (max {})", reason, r.maxReplicas);
  }
  if (reason == api::kTooFewReplicas || reason == api::kScheduledMinReplicas) {
    return fmt::format("{} (min {})", reason, r.minReplicas);
  }
  if (reason == api::kForecastFloor) {
    const auto& f = r.controls.forecast;
    return fmt::format("{} (floor {})", reason, f && f->floor ? *f->floor : n.desired);
  }
  if (isStabilizationReason(reason)) {
    return fmt::format("{} (proposed {}, window keeps {})", reason, n.proposed, n.stabilized);
  }
  return fmt::format("{} (at most {})", reason, n.desired);
}

const MetricReport* decidingMetric(const ReconcileReport& r) {
  for (const auto& m : r.metrics) {
    if (m.proposal && m.proposal == r.metricReplicas && m.name == r.metricName) return &m;
  }
  return nullptr;
}

// Why a branch that decides without the metrics' proposal decided as it did.
std::string branchWhy(const ReconcileReport& r) {
  switch (r.branch) {
    case ReconcileBranch::Deleted:
      return "deleted";
    case ReconcileBranch::FailedGetScale:
      return fmt::format("{}: {}", api::kFailedGetScale, eventMessage(r, api::kFailedGetScale));
    case ReconcileBranch::ScalingDisabled:
      return fmt::format("{}: the target has 0 replicas", api::kScalingDisabled);
    case ReconcileBranch::AboveMaxReplicas:
    case ReconcileBranch::BelowMinReplicas:
    case ReconcileBranch::MetricsFailed:
    case ReconcileBranch::Metrics:
      return r.reason;
  }
  return r.reason;
}

// The first failed metric, and why it failed; `metric` becomes its name.
std::string metricsFailedWhy(const ReconcileReport& r, std::string& metric) {
  for (const auto& m : r.metrics) {
    if (!m.error) continue;
    metric = m.name.empty() ? m.type : m.name;
    return fmt::format("{}: {}", m.conditionReason, *m.error);
  }
  // Failing before any metric was evaluated: the selector checks (InvalidSelector, ...).
  if (const auto* active = api::findCondition(r.status, api::kScalingActive)) {
    return fmt::format("{}: {}", active->reason, active->message);
  }
  return "metrics-failed";
}

// Why the metrics' proposal, normalized, is the size: a pause, the rescale's reason and what
// normalization changed, or the metrics at target.
std::string metricsWhy(const ReconcileReport& r) {
  if (r.controls.pausedScaleTo) {
    // hpa-controller.io/paused: decided as usual, the scale left alone (in one direction, a
    // move in the held direction).
    const controls::Pause pause = r.controls.controls.pause;
    return fmt::format(
        "{} (would scale to {}{})",
        controls::pauseWords(pause == controls::Pause::None ? controls::Pause::Both : pause),
        *r.controls.pausedScaleTo, r.reason.empty() ? "" : ": " + r.reason);
  }
  std::string limited = r.normalization ? normalizationWhy(r) : std::string();
  if (r.rescale) {
    // Upstream gives no reason when the metrics proposed the current size and an earlier,
    // higher recommendation still in the window moves it.
    if (limited.empty()) return r.reason;
    return r.reason.empty() ? limited : r.reason + "; " + limited;
  }
  if (!limited.empty()) return limited;
  const MetricReport* deciding = decidingMetric(r);
  return deciding && deciding->calculation && deciding->calculation->withinTolerance
             ? "within tolerance"
             : "metrics at target";
}

}  // namespace

DecisionSummary summarize(const ReconcileReport& r) {
  DecisionSummary s;
  s.current = r.currentReplicas;
  s.rescale = r.rescale;
  s.next = r.rescale ? r.desiredReplicas : r.currentReplicas;
  s.metric = r.metricName;
  if (r.branch == ReconcileBranch::Metrics) {
    s.why = metricsWhy(r);
  } else if (r.branch == ReconcileBranch::MetricsFailed) {
    s.why = metricsFailedWhy(r, s.metric);
  } else {
    s.why = branchWhy(r);
  }
  return s;
}

const char* verdictOf(const ReconcileReport& r) {
  if (r.rescaled) return "rescaled";
  return r.controls.pausedScaleTo ? "paused" : "decided";
}

}  // namespace hpa::report
