#include "report/decision_outcome.h"

#include <string_view>

#include "api/hpa.h"

namespace hpa::report {
namespace {

// The condition reasons of normalization (replicacalc/normalization.cc) and of the schedule and
// forecast controls (controls/schedule_control.cc, forecast_control.cc), in the vocabulary of
// DecisionLimit.
DecisionLimit limitOfReason(std::string_view reason, bool behaviorPolicies) {
  if (reason == api::kTooManyReplicas) return DecisionLimit::MaxReplicas;
  if (reason == api::kTooFewReplicas) return DecisionLimit::MinReplicas;
  if (reason == api::kScaleUpLimit)
    return behaviorPolicies ? DecisionLimit::BehaviorPolicy : DecisionLimit::ScaleUpLimit;
  if (reason == api::kScaleDownLimit) return DecisionLimit::BehaviorPolicy;
  if (isStabilizationReason(reason)) return DecisionLimit::StabilizationWindow;
  if (reason == api::kScheduledMinReplicas || reason == api::kScheduledMaxReplicas)
    return DecisionLimit::ScheduleWindow;
  if (reason == api::kForecastFloor) return DecisionLimit::Forecast;
  return DecisionLimit::None;
}

bool fallbackDecided(const ReconcileReport& r) {
  for (const auto& m : r.metrics) {
    if (m.fallback && m.proposal && m.proposal == r.metricReplicas) return true;
  }
  return false;
}

bool metricRead(const ReconcileReport& r) {
  for (const auto& m : r.metrics) {
    if (!m.error && m.proposal) return true;
  }
  return false;
}

// A pause first (nothing else moved the target), then the limit that held the recommendation,
// then a fallback that proposed it.
DecisionLimit limitOf(const ReconcileReport& r) {
  if (r.controls.pausedScaleTo) return DecisionLimit::Paused;
  if (r.branch == ReconcileBranch::AboveMaxReplicas) return DecisionLimit::MaxReplicas;
  if (r.branch == ReconcileBranch::BelowMinReplicas) return DecisionLimit::MinReplicas;
  if (auto limited = limitingCondition(r)) {
    const bool policies = r.normalization && r.normalization->behaviorPolicies;
    if (auto limit = limitOfReason(limited->first, policies); limit != DecisionLimit::None)
      return limit;
  }
  return fallbackDecided(r) ? DecisionLimit::Fallback : DecisionLimit::None;
}

}  // namespace

const char* limitName(DecisionLimit limit) {
  switch (limit) {
    case DecisionLimit::None:
      return "none";
    case DecisionLimit::MinReplicas:
      return "minReplicas";
    case DecisionLimit::MaxReplicas:
      return "maxReplicas";
    case DecisionLimit::ScaleUpLimit:
      return "scaleUpLimit";
    case DecisionLimit::BehaviorPolicy:
      return "behaviorPolicy";
    case DecisionLimit::StabilizationWindow:
      return "stabilizationWindow";
    case DecisionLimit::ScheduleWindow:
      return "scheduleWindow";
    case DecisionLimit::Paused:
      return "paused";
    case DecisionLimit::Fallback:
      return "fallback";
    case DecisionLimit::Forecast:
      return "forecast";
  }
  return "none";
}

std::optional<std::pair<std::string, std::string>> limitingCondition(const ReconcileReport& r) {
  // A schedule window's bound decided (in the metrics path or outside it), or the forecast's
  // floor: its condition says so.
  if ((r.controls.schedule && r.controls.schedule->held) ||
      (r.controls.forecast && r.controls.forecast->held)) {
    if (const auto* limited = api::findCondition(r.status, api::kScalingLimited)) {
      return std::pair{limited->reason, limited->message};
    }
  }
  if (!r.normalization) return std::nullopt;
  const auto& n = *r.normalization;
  if (n.scalingLimited.status == api::kConditionTrue)
    return std::pair{n.scalingLimited.reason, n.scalingLimited.message};
  if (n.stabilized != n.proposed) return std::pair{n.ableToScale.reason, n.ableToScale.message};
  return std::nullopt;
}

bool isStabilizationReason(std::string_view reason) {
  return reason == api::kScaleUpStabilized || reason == api::kScaleDownStabilized;
}

DecisionOutcome outcomeOf(const ReconcileReport& r, Time decidedAt) {
  DecisionOutcome o;
  o.currentReplicas = r.currentReplicas;
  o.desiredReplicas = r.desiredReplicas;
  o.proposedReplicas = r.metricReplicas;
  o.limitedBy = limitOf(r);
  const auto* active = api::findCondition(r.status, api::kScalingActive);
  o.scalingActive = active && active->status == api::kConditionTrue;
  if (metricRead(r)) o.metricsReadAt = decidedAt;
  if (r.controls.forecast && r.controls.forecast->value) {
    const auto& f = *r.controls.forecast;
    o.forecast = DecisionOutcome::Forecast{f.metric, *f.value, f.floor};
  }
  if (!r.error.empty()) {
    o.failingReason = r.targetNotFound          ? kTargetNotFoundReason
                      : r.failureReason.empty() ? kUnreportedFailureReason
                                                : r.failureReason;
  }
  return o;
}

}  // namespace hpa::report
