#include "controller/decision_summary.h"

#include <fmt/format.h>

namespace hpa::controller {
namespace {

const api::HorizontalPodAutoscalerCondition* conditionOf(const ReconcileReport& r, const std::string& type) {
  for (const auto& c : r.status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

std::string eventMessage(const ReconcileReport& r, const std::string& reason) {
  for (const auto& e : r.events) {
    if (e.reason == reason) return e.message;
  }
  return "";
}

// Why normalization kept or moved the proposal: the stabilization window, then the limits.
std::string normalizationWhy(const ReconcileReport& r) {
  const auto& n = *r.normalization;
  if (n.desired != n.stabilized && n.scalingLimited.status == "True") {
    const std::string& reason = n.scalingLimited.reason;
    if (reason == "TooManyReplicas") return fmt::format("TooManyReplicas (max {})", r.maxReplicas);
    if (reason == "TooFewReplicas") return fmt::format("TooFewReplicas (min {})", r.minReplicas);
    return fmt::format("{} (at most {})", reason, n.desired);
  }
  if (n.stabilized != n.proposed) {
    return fmt::format("{} (proposed {}, window keeps {})", n.ableToScale.reason, n.proposed, n.stabilized);
  }
  return "";
}

const MetricReport* decidingMetric(const ReconcileReport& r) {
  for (const auto& m : r.metrics) {
    if (m.proposal && m.proposal == r.metricReplicas && m.name == r.metricName) return &m;
  }
  return nullptr;
}

}  // namespace

DecisionSummary summarize(const ReconcileReport& r) {
  DecisionSummary s;
  s.current = r.currentReplicas;
  s.rescale = r.rescale;
  s.next = r.rescale ? r.desiredReplicas : r.currentReplicas;
  s.metric = r.metricName;
  switch (r.branch) {
    case ReconcileBranch::Deleted:
      s.why = "deleted";
      return s;
    case ReconcileBranch::FailedGetScale:
      s.why = fmt::format("FailedGetScale: {}", eventMessage(r, "FailedGetScale"));
      return s;
    case ReconcileBranch::ScalingDisabled:
      s.why = "ScalingDisabled: the target has 0 replicas";
      return s;
    case ReconcileBranch::MetricsFailed:
      for (const auto& m : r.metrics) {
        if (!m.error) continue;
        s.metric = m.name.empty() ? m.type : m.name;
        s.why = fmt::format("{}: {}", m.conditionReason, *m.error);
        return s;
      }
      // Failing before any metric was evaluated: the selector checks (InvalidSelector, ...).
      if (const auto* active = conditionOf(r, api::kScalingActive)) {
        s.why = fmt::format("{}: {}", active->reason, active->message);
      } else {
        s.why = "metrics-failed";
      }
      return s;
    case ReconcileBranch::AboveMaxReplicas:
    case ReconcileBranch::BelowMinReplicas:
      s.why = r.reason;
      return s;
    case ReconcileBranch::Metrics:
      break;
  }
  if (r.controls.pausedScaleTo) {
    // hpa-controller.io/paused: decided as usual, the scale left alone.
    s.why = fmt::format("paused (would scale to {}{})", *r.controls.pausedScaleTo,
                        r.reason.empty() ? "" : ": " + r.reason);
    return s;
  }
  if (r.rescale) {
    s.why = r.reason;
    if (r.normalization) {
      // Upstream gives no reason when the metrics proposed the current size and an earlier,
      // higher recommendation still in the window moves it.
      if (std::string limited = normalizationWhy(r); !limited.empty()) {
        s.why = s.why.empty() ? limited : s.why + "; " + limited;
      }
    }
    return s;
  }
  if (r.normalization) {
    if (std::string why = normalizationWhy(r); !why.empty()) {
      s.why = why;
      return s;
    }
  }
  const MetricReport* deciding = decidingMetric(r);
  s.why = deciding && deciding->calculation && deciding->calculation->withinTolerance ? "within tolerance"
                                                                                     : "metrics at target";
  return s;
}

}  // namespace hpa::controller
