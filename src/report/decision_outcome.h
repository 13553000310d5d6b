#pragma once

// One reconcile's decision as a few numbers and a word: what /metrics shows of each HPA. Taken
// from the reconcile's report, with the same limit the hpa-controller.io/last-decision
// annotation names (limitingCondition), so the metrics, the annotation and `explain` agree.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/time.h"
#include "report/reconcile_report.h"

namespace hpa::report {

// What held the size where it is: a fixed vocabulary, so a label of it stays small.
enum class DecisionLimit {
  None,
  MinReplicas,          // spec.minReplicas (TooFewReplicas, or the target below it)
  MaxReplicas,          // spec.maxReplicas (TooManyReplicas, or the target above it)
  ScaleUpLimit,         // without spec.behavior: at most max(2 x current, 4)
  BehaviorPolicy,       // a spec.behavior rate policy (ScaleUpLimit / ScaleDownLimit)
  StabilizationWindow,  // a higher (or lower) recommendation still in the window
  ScheduleWindow,       // an open hpa-controller.io/schedule window's floor or ceiling
  Paused,               // hpa-controller.io/paused: decided, the scale left alone
  Fallback,             // a failed metric's hpa-controller.io/fallback proposed the size
  Forecast,             // an active hpa-controller.io/forecast's floor
};
inline constexpr int kDecisionLimitCount = 10;

// The label value: "none", "minReplicas", "maxReplicas", "scaleUpLimit", "behaviorPolicy",
// "stabilizationWindow", "scheduleWindow", "paused", "fallback", "forecast".
const char* limitName(DecisionLimit limit);

// The failing reason of a reconcile whose scale target does not exist (its Scale read answered
// NotFound), instead of upstream's FailedGetScale: a target deleted before its HPA, or an HPA
// applied before its target, which an alert may treat apart from a controller that cannot act.
inline constexpr const char* kTargetNotFoundReason = "TargetNotFound";
// A failed reconcile that reported no reason (none of upstream's failures is one: only a lister
// that fails, which the daemon's cache lister never does).
inline constexpr const char* kUnreportedFailureReason = "Unknown";

struct DecisionOutcome {
  std::int32_t currentReplicas = 0;
  std::int32_t desiredReplicas = 0;              // as written to status.desiredReplicas
  std::optional<std::int32_t> proposedReplicas;  // the metrics' proposal, when any metric gave one
  DecisionLimit limitedBy = DecisionLimit::None;
  bool scalingActive = false;  // the ScalingActive condition after this reconcile
  // When a metric was read successfully in this reconcile (nullopt: none was).
  std::optional<Time> metricsReadAt;
  // Why the reconcile failed (ReconcileReport::failureReason, or kTargetNotFoundReason); empty
  // when it succeeded.
  std::string failingReason;
  // hpa-controller.io/forecast's forecast (the metric's total, in its unit) and the floor it
  // makes, active or previewed; nullopt while there is no forecast.
  struct Forecast {
    std::string metric;
    double value = 0;
    std::optional<std::int32_t> floor;
    bool operator==(const Forecast&) const = default;
  };
  std::optional<Forecast> forecast;
};

// Why the replicas did not follow the metrics' proposal, as the condition (reason, message) that
// says so: a schedule window's bound or the forecast's floor when it decided, else normalization's
// rate or replica-bound limit, else its stabilization window; nullopt when the size is the
// proposal. The one answer to that question: the summary, the outcome's limit (so /metrics and
// shadow's causes) and the recorded decision read it.
std::optional<std::pair<std::string, std::string>> limitingCondition(const ReconcileReport& report);

// Whether a condition reason names a stabilization window (ScaleUpStabilized, ScaleDownStabilized).
bool isStabilizationReason(std::string_view reason);

// The outcome of a reconcile made at `decidedAt`.
DecisionOutcome outcomeOf(const ReconcileReport& report, Time decidedAt);

}  // namespace hpa::report
