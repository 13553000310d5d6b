#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/history.h"
#include "api/hpa.h"
#include "common/time.h"
#include "replicacalc/decision_rules.h"

namespace hpa::replicacalc {

// Normalization of a metric-based proposal (docs/behavior.md, section 6): stabilization over the
// recent recommendations, then rate limits and min/max. The history lives with the caller.

struct NormalizationInput {
  std::int32_t currentReplicas = 0;
  std::int32_t proposedReplicas = 0;  // max over the metric proposals
  std::int32_t minReplicas = 1;
  std::int32_t maxReplicas = 0;
  Time now;
  DecisionRules rules{};  // the release whose stabilization and policy periods apply
};

// A condition to set, as computed (status "True"/"False").
struct ConditionOutcome {
  std::string status;
  std::string reason;
  std::string message;
  bool operator==(const ConditionOutcome&) const = default;
};

struct NormalizationResult {
  std::int32_t proposed = 0;
  std::int32_t stabilized = 0;  // after the stabilization window(s)
  std::int32_t desired = 0;     // after rate limits and min/max
  ConditionOutcome ableToScale;
  ConditionOutcome scalingLimited;
  std::optional<std::int32_t> scaleUpLimit;    // the behavior policies' limit, when consulted
  std::optional<std::int32_t> scaleDownLimit;  // (v1 limit: 2x current, at least 4, for scale-up)
  std::int32_t upWindowSeconds = 0;            // windows applied (behavior) ...
  std::int32_t downWindowSeconds = 0;          // ... or the flag's window without behavior
  // spec.behavior's policies set the rate limits (else the v1 limit, max(2 x current, 4)).
  bool behaviorPolicies = false;
  bool operator==(const NormalizationResult&) const = default;
};

// The stabilization windows a normalization applies: spec.behavior's (the API server's defaults
// where missing; a missing scale-down window is the flag's `window`), else none for scale-up and
// the flag's `window` for scale-down. Whoever reasons about a window (shadow mode's causes) asks
// here rather than deriving it again.
struct StabilizationWindows {
  Duration up{0};
  Duration down{0};
};
StabilizationWindows stabilizationWindows(
    const std::optional<api::HorizontalPodAutoscalerBehavior>& behavior, Duration window);

// Without spec.behavior: the highest recommendation in the last `window`, then at most
// max(2 x current, 4) and within [min, max].
NormalizationResult normalizeWithoutBehavior(
    std::vector<api::TimestampedRecommendation>& recommendations, const NormalizationInput& input,
    Duration window);

// With spec.behavior (the API server's defaults filled where missing; a missing scale-down
// window is the flag's `window`).
NormalizationResult normalizeWithBehavior(
    std::vector<api::TimestampedRecommendation>& recommendations,
    const std::vector<api::TimestampedScaleEvent>& scaleUpEvents,
    const std::vector<api::TimestampedScaleEvent>& scaleDownEvents,
    const api::HorizontalPodAutoscalerBehavior& behavior, const NormalizationInput& input,
    Duration window);

// The normalization a reconcile applies: with spec.behavior's rules when `behavior` is set, else
// the flag's window and the v1 limit. Records the proposal in `history` as both do.
NormalizationResult normalize(api::AutoscalerHistory& history,
                              const std::optional<api::HorizontalPodAutoscalerBehavior>& behavior,
                              const NormalizationInput& input, Duration window);

// Policy limits (a policy's limit, docs/behavior.md section 6), exposed for tests and `explain`.
// Each policy's period starts from the current count less what that period added and plus what
// it removed (before policyPeriodCountsBothDirections: only the changes of the limit's own
// direction).
std::int32_t scaleUpLimit(std::int32_t current, const std::vector<api::TimestampedScaleEvent>& up,
                          const std::vector<api::TimestampedScaleEvent>& down,
                          const api::HPAScalingRules& rules, Time now,
                          const DecisionRules& decisionRules = DecisionRules{});
std::int32_t scaleDownLimit(std::int32_t current, const std::vector<api::TimestampedScaleEvent>& up,
                            const std::vector<api::TimestampedScaleEvent>& down,
                            const api::HPAScalingRules& rules, Time now,
                            const DecisionRules& decisionRules = DecisionRules{});

// After a successful rescale with behavior set: marks events older than the longest policy
// period of that direction outdated and stores the change in the last outdated slot (or appends).
void recordScaleEvent(const api::HorizontalPodAutoscalerBehavior& behavior,
                      std::vector<api::TimestampedScaleEvent>& scaleUpEvents,
                      std::vector<api::TimestampedScaleEvent>& scaleDownEvents,
                      std::int32_t previousReplicas, std::int32_t newReplicas, Time now);

}  // namespace hpa::replicacalc
