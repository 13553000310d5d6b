#pragma once

// The hpa-controller.io/last-decision annotation: the last decision of an HPA where its tenants
// can read it (`kubectl describe hpa`), for HPAs that ask for it with
// hpa-controller.io/record-decision. Compact JSON shaped like a status field (per metric its
// proposal and the pods it counted, the recommendation, the stabilized value, the limit that
// applied, the time), so that a later upstream field can take it over. Written only when the
// decision changes: the time alone never makes a write.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "api/hpa.h"
#include "common/time.h"
#include "controller/reconcile_report.h"

namespace hpa::controller {

inline constexpr const char* kLastDecisionAnnotation = "hpa-controller.io/last-decision";

// The decision of a reconcile at `now`; nullopt for one that decided nothing (a deleted HPA).
std::optional<nlohmann::json> lastDecisionDocument(const ReconcileReport& report, Time now);

// Whether `next` says something the stored annotation text does not, its time aside (an absent
// or unreadable stored value always differs).
bool decisionChanged(const std::string* stored, const nlohmann::json& next);
// Whether two decision documents say the same, their times aside (no copies: it runs every sync).
bool sameDecision(const nlohmann::json& a, const nlohmann::json& b);

// Where the run loop hands each decision of an HPA that records them.
class DecisionPublisher {
 public:
  virtual ~DecisionPublisher() = default;
  // Writes `decision` on `hpa` when it differs from what is stored (or was last written);
  // nullopt removes an annotation left by an HPA that stopped recording.
  virtual void publish(const api::HorizontalPodAutoscaler& hpa, const std::optional<nlohmann::json>& decision) = 0;
  virtual void forget(const std::string& key) = 0;
};

}  // namespace hpa::controller
