#pragma once

// The hpa-controller.io/last-decision annotation: the last decision of an HPA where its tenants
// can read it (`kubectl describe hpa`), for HPAs that ask for it with
// hpa-controller.io/record-decision. Compact JSON shaped like a status field (per metric its
// proposal and the pods it counted, the recommendation, the stabilized value, the limit that
// applied, the time), so that a later upstream field can take it over. Written only when the
// decision changes: the time alone never makes a write.

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/hpa.h"
#include "common/time.h"

namespace hpa::controls {

inline constexpr const char* kLastDecisionAnnotation = "hpa-controller.io/last-decision";

// A reconcile's decision, as the annotation says it (its time aside). Compared every sync, so
// it is plain data: the JSON is built only when it changes.
struct LastDecision {
  struct Metric {
    std::string type;
    std::string name;
    std::string failed;  // the failed metric's condition reason (not its message: that changes)
    std::optional<std::int32_t> proposedReplicas;
    std::optional<std::int32_t> fallbackReplicas;
    std::optional<std::array<std::int32_t, 4>> pods;  // ready, unready, missing, ignored
    std::string source{};  // a routed metric's source ("service ns/name:443"), else ""
    bool operator==(const Metric&) const = default;
  };
  std::string branch;
  std::int32_t currentReplicas = 0;
  std::int32_t desiredReplicas = 0;
  std::string reason;
  std::vector<Metric> metrics;
  std::optional<std::int32_t> recommendedReplicas;
  std::optional<std::int32_t> stabilizedReplicas;
  std::optional<std::pair<std::string, std::string>> limitedBy;  // reason, message
  std::optional<std::int32_t> pausedScaleTo;
  // A pause in one direction that held it: "ScaleUp" or "ScaleDown" (hpa-controller.io/paused's
  // value; empty for a full pause, which pausedScaleTo alone says).
  std::string paused;
  // This HPA's start-up windows where its controls set them (Go durations), else empty.
  std::string cpuInitializationPeriod;
  std::string initialReadinessDelay;
  // "Spec" where hpa-controller.io/within-tolerance-keep sets it, else empty.
  std::string withinToleranceKeep;
  // hpa-controller.io/requests-source where it is not Spec ("Actuated", "Limits"), else empty.
  std::string requestsSource;
  // hpa-controller.io/forecast: its mode, the Forecast condition's reason, and the forecast, its
  // confidence, what the recent load did to it and the floor where there are (rounded as the
  // condition rounds them).
  struct Forecast {
    std::string mode;
    std::string metric;
    std::string reason;
    std::optional<double> value;
    std::optional<double> confidence;
    std::optional<double> recentRatio;  // the recent load over its forecast, when that moved it
    std::optional<std::int32_t> floor;
    bool operator==(const Forecast&) const = default;
  };
  std::optional<Forecast> forecast;
  bool operator==(const LastDecision&) const = default;
};

// The annotation's document for `decision` made at `now`.
nlohmann::json lastDecisionJson(const LastDecision& decision, Time now);

// Whether `next` says something the stored annotation text does not, its time aside (an absent
// or unreadable stored value always differs).
bool decisionChanged(const std::string* stored, const nlohmann::json& next);
// Whether two decision documents say the same, their times aside.
bool sameDecision(const nlohmann::json& a, const nlohmann::json& b);

// Where the run loop hands each decision of an HPA that records them.
class DecisionPublisher {
 public:
  virtual ~DecisionPublisher() = default;
  // Writes `decision` (made at `now`) on `hpa` when it differs from what is stored (or was last
  // written); nullopt removes an annotation left by an HPA that stopped recording.
  virtual void publish(const api::HorizontalPodAutoscaler& hpa,
                       const std::optional<LastDecision>& decision, Time now) = 0;
  virtual void forget(const std::string& key) = 0;
};

}  // namespace hpa::controls
