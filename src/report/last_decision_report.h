#pragma once

// A reconcile's decision as the hpa-controller.io/last-decision annotation records it
// (controls/last_decision.h), taken from the reconcile's report.

#include <nlohmann/json.hpp>
#include <optional>

#include "common/time.h"
#include "controls/last_decision.h"
#include "report/reconcile_report.h"

namespace hpa::report {

// The decision of a reconcile; nullopt for one that decided nothing (a deleted HPA).
std::optional<controls::LastDecision> lastDecisionOf(const ReconcileReport& report);
// Its annotation document at `now` (explain, tests).
std::optional<nlohmann::json> lastDecisionDocument(const ReconcileReport& report, Time now);

}  // namespace hpa::report
