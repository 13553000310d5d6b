#include "controller/last_decision.h"

#include "controller/conditions.h"

namespace hpa::controller {
namespace {

using nlohmann::json;

constexpr const char* kTimeField = "time";

LastDecision::Metric metricOf(const MetricReport& m) {
  LastDecision::Metric out{m.type, m.name, m.error ? m.conditionReason : std::string(), m.proposal, std::nullopt,
                           std::nullopt};
  if (m.fallback) {
    out.name = m.fallback->metric;
    out.fallbackReplicas = m.fallback->replicas;
  }
  if (m.calculation && m.calculation->readyPodCount > 0) {
    const auto& c = *m.calculation;
    out.pods = std::array<std::int32_t, 4>{c.readyPodCount, c.unreadyPodCount, c.missingPodCount, c.ignoredPodCount};
  }
  return out;
}

json metricJson(const LastDecision::Metric& m) {
  json out{{"type", m.type}};
  if (!m.name.empty()) out["name"] = m.name;
  if (!m.failed.empty()) out["failed"] = m.failed;
  if (m.fallbackReplicas) out["fallbackReplicas"] = *m.fallbackReplicas;
  if (m.proposedReplicas) out["proposedReplicas"] = *m.proposedReplicas;
  if (m.pods) {
    out["pods"] = json{{"ready", (*m.pods)[0]}, {"unready", (*m.pods)[1]}, {"missing", (*m.pods)[2]}, {"ignored", (*m.pods)[3]}};
  }
  return out;
}

// The limit that held the recommendation back: a rate or replica-bound limit, else a window.
std::optional<std::pair<std::string, std::string>> limitApplied(const replicacalc::NormalizationResult& n) {
  if (n.scalingLimited.status == api::kConditionTrue) return std::pair{n.scalingLimited.reason, n.scalingLimited.message};
  if (n.stabilized != n.proposed) return std::pair{n.ableToScale.reason, n.ableToScale.message};
  return std::nullopt;
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
  if (r.normalization) {
    d.stabilizedReplicas = r.normalization->stabilized;
    d.limitedBy = limitApplied(*r.normalization);
  }
  // A schedule window's bound decided (in the metrics path or outside it): its condition says so.
  if (r.controls.schedule && r.controls.schedule->held) {
    if (const auto* limited = findCondition(r.status, api::kScalingLimited)) {
      d.limitedBy = std::pair{limited->reason, limited->message};
    }
  }
  d.pausedScaleTo = r.controls.pausedScaleTo;
  return d;
}

json lastDecisionJson(const LastDecision& d, Time now) {
  json out{{kTimeField, formatRFC3339(now)},
           {"branch", d.branch},
           {"currentReplicas", d.currentReplicas},
           {"desiredReplicas", d.desiredReplicas}};
  if (!d.reason.empty()) out["reason"] = d.reason;
  if (!d.metrics.empty()) {
    json metrics = json::array();
    for (const auto& m : d.metrics) metrics.push_back(metricJson(m));
    out["metrics"] = std::move(metrics);
  }
  if (d.recommendedReplicas) out["recommendedReplicas"] = *d.recommendedReplicas;
  if (d.stabilizedReplicas) out["stabilizedReplicas"] = *d.stabilizedReplicas;
  if (d.limitedBy) out["limitedBy"] = json{{"reason", d.limitedBy->first}, {"message", d.limitedBy->second}};
  if (d.pausedScaleTo) out["pausedScaleTo"] = *d.pausedScaleTo;
  return out;
}

std::optional<json> lastDecisionDocument(const ReconcileReport& r, Time now) {
  auto d = lastDecisionOf(r);
  if (!d) return std::nullopt;
  return lastDecisionJson(*d, now);
}

bool sameDecision(const json& a, const json& b) {
  if (!a.is_object() || !b.is_object()) return false;
  if (a.size() - a.count(kTimeField) != b.size() - b.count(kTimeField)) return false;
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (it.key() == kTimeField) continue;
    auto other = b.find(it.key());
    if (other == b.end() || *other != it.value()) return false;
  }
  return true;
}

bool decisionChanged(const std::string* stored, const json& next) {
  if (!stored) return true;
  return !sameDecision(json::parse(*stored, nullptr, /*allow_exceptions=*/false), next);
}

}  // namespace hpa::controller
