#include "controls/last_decision.h"

namespace hpa::controls {
namespace {

using nlohmann::json;

constexpr const char* kTimeField = "time";

json metricJson(const LastDecision::Metric& m) {
  json out{{"type", m.type}};
  if (!m.name.empty()) out["name"] = m.name;
  if (!m.source.empty()) out["source"] = m.source;
  if (!m.failed.empty()) out["failed"] = m.failed;
  if (m.fallbackReplicas) out["fallbackReplicas"] = *m.fallbackReplicas;
  if (m.proposedReplicas) out["proposedReplicas"] = *m.proposedReplicas;
  if (m.pods) {
    out["pods"] = json{{"ready", (*m.pods)[0]},
                       {"unready", (*m.pods)[1]},
                       {"missing", (*m.pods)[2]},
                       {"ignored", (*m.pods)[3]}};
  }
  return out;
}

json forecastJson(const LastDecision::Forecast& f) {
  json out{{"mode", f.mode}, {"reason", f.reason}};
  if (!f.metric.empty()) out["metric"] = f.metric;
  if (f.value) out["value"] = *f.value;
  if (f.confidence) out["confidence"] = *f.confidence;
  if (f.recentRatio) out["recentRatio"] = *f.recentRatio;
  if (f.floor) out["floor"] = *f.floor;
  return out;
}

}  // namespace

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
  if (d.limitedBy)
    out["limitedBy"] = json{{"reason", d.limitedBy->first}, {"message", d.limitedBy->second}};
  if (d.pausedScaleTo) out["pausedScaleTo"] = *d.pausedScaleTo;
  if (!d.paused.empty()) out["paused"] = d.paused;
  if (!d.cpuInitializationPeriod.empty())
    out["cpuInitializationPeriod"] = d.cpuInitializationPeriod;
  if (!d.initialReadinessDelay.empty()) out["initialReadinessDelay"] = d.initialReadinessDelay;
  if (!d.withinToleranceKeep.empty()) out["withinToleranceKeep"] = d.withinToleranceKeep;
  if (!d.requestsSource.empty()) out["requestsSource"] = d.requestsSource;
  if (d.forecast) out["forecast"] = forecastJson(*d.forecast);
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

}  // namespace hpa::controls
