#include "controller/last_decision.h"

namespace hpa::controller {
namespace {

using nlohmann::json;

constexpr const char* kTimeField = "time";

json podsCounted(const replicacalc::Calculation& c) {
  return json{{"ready", c.readyPodCount},
              {"unready", c.unreadyPodCount},
              {"missing", c.missingPodCount},
              {"ignored", c.ignoredPodCount}};
}

json metricDecision(const MetricReport& m) {
  json out{{"type", m.type}};
  if (!m.name.empty()) out["name"] = m.name;
  if (m.error) out["failed"] = m.conditionReason;  // the reason, not the message: it says the same each sync
  if (m.fallback) {
    out["name"] = m.fallback->metric;
    out["fallbackReplicas"] = m.fallback->replicas;
  }
  if (m.proposal) out["proposedReplicas"] = *m.proposal;
  if (m.calculation && m.calculation->readyPodCount > 0) out["pods"] = podsCounted(*m.calculation);
  return out;
}

// The limit that held the recommendation back: a rate or replica-bound limit, else a window.
std::optional<json> limitApplied(const replicacalc::NormalizationResult& n) {
  if (n.scalingLimited.status == api::kConditionTrue) {
    return json{{"reason", n.scalingLimited.reason}, {"message", n.scalingLimited.message}};
  }
  if (n.stabilized != n.proposed) return json{{"reason", n.ableToScale.reason}, {"message", n.ableToScale.message}};
  return std::nullopt;
}

}  // namespace

std::optional<json> lastDecisionDocument(const ReconcileReport& r, Time now) {
  if (r.branch == ReconcileBranch::Deleted) return std::nullopt;
  json out{{kTimeField, formatRFC3339(now)},
           {"branch", branchName(r.branch)},
           {"currentReplicas", r.currentReplicas},
           {"desiredReplicas", r.desiredReplicas}};
  if (!r.reason.empty()) out["reason"] = r.reason;
  if (!r.metrics.empty()) {
    json metrics = json::array();
    for (const auto& m : r.metrics) metrics.push_back(metricDecision(m));
    out["metrics"] = std::move(metrics);
  }
  if (r.metricReplicas) out["recommendedReplicas"] = *r.metricReplicas;
  if (r.normalization) {
    out["stabilizedReplicas"] = r.normalization->stabilized;
    if (auto limit = limitApplied(*r.normalization)) out["limitedBy"] = std::move(*limit);
  }
  if (r.controls.pausedScaleTo) out["pausedScaleTo"] = *r.controls.pausedScaleTo;
  return out;
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
