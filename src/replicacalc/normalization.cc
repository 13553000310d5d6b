#include "replicacalc/normalization.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "api/defaults.h"

namespace hpa::replicacalc {
namespace {

using api::kConditionFalse;
using api::kConditionTrue;
constexpr std::int32_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();
constexpr std::int32_t kMinInt32 = std::numeric_limits<std::int32_t>::min();

const ConditionOutcome kReadyForNewScaleOutcome{kConditionTrue, api::kReadyForNewScale,
                                                "recommended size matches current size"};
const char* kScaleDownStabilizedMsg =
    "recent recommendations were higher than current one, applying the highest recent "
    "recommendation";
const char* kScaleUpStabilizedMsg =
    "recent recommendations were lower than current one, applying the lowest recent recommendation";
const char* kScaleUpLimitMsg =
    "the desired replica count is increasing faster than the maximum scale rate";
const char* kScaleDownLimitMsg =
    "the desired replica count is decreasing faster than the maximum scale rate";
const char* kTooManyMsg = "the desired replica count is more than the maximum replica count";
const char* kTooFewMsg = "the desired replica count is less than the minimum replica count";
const char* kWithinRangeMsg = "the desired count is within the acceptable range";

// Stores the new recommendation in the slot of an old one, or appends (the list is never pruned).
void record(std::vector<api::TimestampedRecommendation>& recs, std::optional<size_t> oldIndex,
            std::int32_t replicas, Time now) {
  if (oldIndex) {
    recs[*oldIndex] = {replicas, now};
  } else {
    recs.push_back({replicas, now});
  }
}

struct Limited {
  std::int32_t replicas;
  const char* reason;
  const char* message;
};

std::int32_t saturate(std::int64_t v) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, kMinInt32, kMaxInt32));
}

std::int64_t changeInPeriod(std::int32_t periodSeconds,
                            const std::vector<api::TimestampedScaleEvent>& events, Time now) {
  const Time cutoff = now - std::chrono::seconds(periodSeconds);
  std::int64_t change = 0;
  for (const auto& e : events) {
    if (e.timestamp > cutoff) change += e.replicaChange;
  }
  return change;
}

ConditionOutcome limitedCondition(std::int32_t result, std::int32_t stabilized, const Limited& l) {
  return ConditionOutcome{result == stabilized ? kConditionFalse : kConditionTrue, l.reason,
                          l.message};
}

std::int32_t longestPeriod(const api::HPAScalingRules& rules) {
  std::int32_t longest = 0;
  for (const auto& p : rules.policies.value_or(std::vector<api::HPAScalingPolicy>{})) {
    longest = std::max(longest, p.periodSeconds);
  }
  return longest;
}

void storeEvent(std::vector<api::TimestampedScaleEvent>& events, std::int32_t longestPeriodSeconds,
                std::int32_t change, Time now) {
  const Time cutoff = now - std::chrono::seconds(longestPeriodSeconds);
  std::optional<size_t> oldIndex;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].timestamp < cutoff) events[i].outdated = true;
    if (events[i].outdated) oldIndex = i;
  }
  api::TimestampedScaleEvent event{change, now, false};
  if (oldIndex) {
    events[*oldIndex] = event;
  } else {
    events.push_back(event);
  }
}

std::int32_t wholeSeconds(Duration d) {
  return static_cast<std::int32_t>(std::chrono::duration_cast<std::chrono::seconds>(d).count());
}

}  // namespace

StabilizationWindows stabilizationWindows(
    const std::optional<api::HorizontalPodAutoscalerBehavior>& behavior, Duration window) {
  if (!behavior) return {Duration(0), window};
  const auto up = api::defaultedScaleUpRules(behavior->scaleUp).stabilizationWindowSeconds;
  const auto down = api::defaultedScaleDownRules(behavior->scaleDown).stabilizationWindowSeconds;
  return {std::chrono::seconds(up.value_or(0)),
          down ? Duration(std::chrono::seconds(*down)) : window};
}

NormalizationResult normalizeWithoutBehavior(
    std::vector<api::TimestampedRecommendation>& recommendations, const NormalizationInput& in,
    Duration window) {
  NormalizationResult r;
  r.proposed = in.proposedReplicas;
  r.downWindowSeconds = wholeSeconds(stabilizationWindows(std::nullopt, window).down);

  // Stabilization: the highest recommendation within the window, current one included.
  const Time cutoff = in.now - window;
  std::int32_t stabilized = in.proposedReplicas;
  std::optional<size_t> oldIndex;
  for (size_t i = 0; i < recommendations.size(); ++i) {
    if (recommendations[i].timestamp < cutoff) {
      oldIndex = i;
    } else {
      stabilized = std::max(stabilized, recommendations[i].replicas);
    }
  }
  record(recommendations, oldIndex, in.proposedReplicas, in.now);
  r.stabilized = stabilized;
  r.ableToScale =
      stabilized != in.proposedReplicas
          ? ConditionOutcome{kConditionTrue, api::kScaleDownStabilized, kScaleDownStabilizedMsg}
          : kReadyForNewScaleOutcome;

  // Limits: scale-up at most max(2 x current, 4), then [min, max].
  const auto upLimit = static_cast<std::int32_t>(
      std::min<double>(std::max(2.0 * in.currentReplicas, 4.0), static_cast<double>(kMaxInt32)));
  r.scaleUpLimit = upLimit;
  Limited upper = in.maxReplicas > upLimit
                      ? Limited{upLimit, api::kScaleUpLimit, kScaleUpLimitMsg}
                      : Limited{in.maxReplicas, api::kTooManyReplicas, kTooManyMsg};
  Limited result{stabilized, api::kDesiredWithinRange, kWithinRangeMsg};
  if (stabilized < in.minReplicas) {
    result = {in.minReplicas, api::kTooFewReplicas, kTooFewMsg};
  } else if (stabilized > upper.replicas) {
    result = upper;
  }
  r.desired = result.replicas;
  r.scalingLimited = limitedCondition(result.replicas, stabilized, result);
  return r;
}

std::int32_t scaleUpLimit(std::int32_t current, const std::vector<api::TimestampedScaleEvent>& up,
                          const std::vector<api::TimestampedScaleEvent>& down,
                          const api::HPAScalingRules& rules, Time now,
                          const DecisionRules& decisionRules) {
  // Before 1.25 the period started from the scale-ups alone; since, the scale-downs count too.
  const bool both = decisionRules.policyPeriodCountsBothDirections;
  const std::string policy = rules.selectPolicy.value_or(api::kMaxChangePolicySelect);
  if (policy == api::kDisabledPolicySelect) return current;
  const bool pickMin = policy == api::kMinChangePolicySelect;
  std::int64_t result = pickMin ? kMaxInt32 : kMinInt32;
  for (const auto& p : rules.policies.value_or(std::vector<api::HPAScalingPolicy>{})) {
    const std::int64_t start = current - changeInPeriod(p.periodSeconds, up, now) +
                               (both ? changeInPeriod(p.periodSeconds, down, now) : 0);
    std::int64_t proposed = 0;
    if (p.type == api::kPodsScalingPolicy) {
      proposed = start + p.value;
    } else if (p.type == api::kPercentScalingPolicy) {
      proposed = saturate(static_cast<std::int64_t>(std::clamp(
          std::ceil(static_cast<double>(start) * (1.0 + static_cast<double>(p.value) / 100.0)),
          static_cast<double>(kMinInt32), static_cast<double>(kMaxInt32))));
    } else {
      continue;
    }
    result = pickMin ? std::min(result, proposed) : std::max(result, proposed);
  }
  return saturate(result);
}

std::int32_t scaleDownLimit(std::int32_t current, const std::vector<api::TimestampedScaleEvent>& up,
                            const std::vector<api::TimestampedScaleEvent>& down,
                            const api::HPAScalingRules& rules, Time now,
                            const DecisionRules& decisionRules) {
  // Before 1.25 the period started from the scale-downs alone; since, the scale-ups count too.
  const bool both = decisionRules.policyPeriodCountsBothDirections;
  const std::string policy = rules.selectPolicy.value_or(api::kMaxChangePolicySelect);
  if (policy == api::kDisabledPolicySelect) return current;
  const bool pickMin = policy == api::kMinChangePolicySelect;
  std::int64_t result = pickMin ? kMinInt32 : kMaxInt32;
  for (const auto& p : rules.policies.value_or(std::vector<api::HPAScalingPolicy>{})) {
    const std::int64_t start = current - (both ? changeInPeriod(p.periodSeconds, up, now) : 0) +
                               changeInPeriod(p.periodSeconds, down, now);
    std::int64_t proposed = 0;
    if (p.type == api::kPodsScalingPolicy) {
      proposed = start - p.value;
    } else if (p.type == api::kPercentScalingPolicy) {
      proposed = static_cast<std::int64_t>(
          std::clamp(static_cast<double>(start) * (1.0 - static_cast<double>(p.value) / 100.0),
                     static_cast<double>(kMinInt32), static_cast<double>(kMaxInt32)));
    } else {
      continue;
    }
    // "Min" picks the smallest change (the largest count), "Max" the biggest.
    result = pickMin ? std::max(result, proposed) : std::min(result, proposed);
  }
  return saturate(result);
}

namespace {

// Up to the lowest recommendation of the scale-up window, down to the highest of the scale-down
// window; entries exactly at a cutoff belong to neither. Records the proposal.
std::int32_t stabilize(std::vector<api::TimestampedRecommendation>& recommendations,
                       const NormalizationInput& in, const NormalizationResult& r) {
  const Time upCutoff = in.now - std::chrono::seconds(r.upWindowSeconds);
  const Time downCutoff = in.now - std::chrono::seconds(r.downWindowSeconds);
  std::int32_t upRecommendation = in.proposedReplicas;
  std::int32_t downRecommendation = in.proposedReplicas;
  std::optional<size_t> oldIndex;
  for (size_t i = 0; i < recommendations.size(); ++i) {
    const auto& rec = recommendations[i];
    if (rec.timestamp > upCutoff) upRecommendation = std::min(upRecommendation, rec.replicas);
    if (rec.timestamp > downCutoff) downRecommendation = std::max(downRecommendation, rec.replicas);
    if (rec.timestamp < upCutoff && rec.timestamp < downCutoff) oldIndex = i;
  }
  std::int32_t stabilized = in.currentReplicas;
  if (stabilized < upRecommendation) stabilized = upRecommendation;
  if (stabilized > downRecommendation) stabilized = downRecommendation;
  record(recommendations, oldIndex, in.proposedReplicas, in.now);
  return stabilized;
}

// kube-controller-manager 1.18-1.20 (before stabilizationEnvelope): the window of the
// proposal's direction alone, its lowest (up) or highest (down) recommendation, the proposal
// included; a recommendation older than both windows is replaced by the proposal.
std::int32_t stabilizeInOneWindow(std::vector<api::TimestampedRecommendation>& recommendations,
                                  const NormalizationInput& in, const NormalizationResult& r) {
  const bool up = in.proposedReplicas >= in.currentReplicas;
  const Time cutoff = in.now - std::chrono::seconds(up ? r.upWindowSeconds : r.downWindowSeconds);
  const Time obsolete =
      in.now - std::chrono::seconds(std::max(r.upWindowSeconds, r.downWindowSeconds));
  std::int32_t stabilized = in.proposedReplicas;
  std::optional<size_t> oldIndex;
  for (size_t i = 0; i < recommendations.size(); ++i) {
    const auto& rec = recommendations[i];
    if (rec.timestamp > cutoff)
      stabilized = up ? std::min(stabilized, rec.replicas) : std::max(stabilized, rec.replicas);
    if (rec.timestamp < obsolete) oldIndex = i;
  }
  record(recommendations, oldIndex, in.proposedReplicas, in.now);
  return stabilized;
}

}  // namespace

NormalizationResult normalizeWithBehavior(
    std::vector<api::TimestampedRecommendation>& recommendations,
    const std::vector<api::TimestampedScaleEvent>& scaleUpEvents,
    const std::vector<api::TimestampedScaleEvent>& scaleDownEvents,
    const api::HorizontalPodAutoscalerBehavior& behavior, const NormalizationInput& in,
    Duration window) {
  // Objects from a server are defaulted already; objects from files may not be.
  const api::HPAScalingRules up = api::defaultedScaleUpRules(behavior.scaleUp);
  const api::HPAScalingRules down = api::defaultedScaleDownRules(behavior.scaleDown);
  const StabilizationWindows windows = stabilizationWindows(behavior, window);
  NormalizationResult r;
  r.proposed = in.proposedReplicas;
  r.behaviorPolicies = true;
  r.upWindowSeconds = wholeSeconds(windows.up);
  r.downWindowSeconds = wholeSeconds(windows.down);

  const std::int32_t stabilized = in.rules.stabilizationEnvelope
                                      ? stabilize(recommendations, in, r)
                                      : stabilizeInOneWindow(recommendations, in, r);
  r.stabilized = stabilized;
  if (stabilized != in.proposedReplicas) {
    r.ableToScale =
        in.proposedReplicas >= in.currentReplicas
            ? ConditionOutcome{kConditionTrue, api::kScaleUpStabilized, kScaleUpStabilizedMsg}
            : ConditionOutcome{kConditionTrue, api::kScaleDownStabilized, kScaleDownStabilizedMsg};
  } else {
    r.ableToScale = kReadyForNewScaleOutcome;
  }

  // Rate limits, and min/max in the direction of the change only.
  Limited result{stabilized, api::kDesiredWithinRange, kWithinRangeMsg};
  if (stabilized > in.currentReplicas) {
    std::int32_t limit =
        scaleUpLimit(in.currentReplicas, scaleUpEvents, scaleDownEvents, up, in.now, in.rules);
    if (limit < in.currentReplicas) limit = in.currentReplicas;
    r.scaleUpLimit = limit;
    Limited upper = in.maxReplicas > limit
                        ? Limited{limit, api::kScaleUpLimit, kScaleUpLimitMsg}
                        : Limited{in.maxReplicas, api::kTooManyReplicas, kTooManyMsg};
    if (stabilized > upper.replicas) result = upper;
  } else if (stabilized < in.currentReplicas) {
    std::int32_t limit =
        scaleDownLimit(in.currentReplicas, scaleUpEvents, scaleDownEvents, down, in.now, in.rules);
    if (limit > in.currentReplicas) limit = in.currentReplicas;
    r.scaleDownLimit = limit;
    Limited lower = in.minReplicas < limit
                        ? Limited{limit, api::kScaleDownLimit, kScaleDownLimitMsg}
                        : Limited{in.minReplicas, api::kTooFewReplicas, kTooFewMsg};
    if (stabilized < lower.replicas) result = lower;
  }
  r.desired = result.replicas;
  r.scalingLimited = limitedCondition(result.replicas, stabilized, result);
  return r;
}

NormalizationResult normalize(api::AutoscalerHistory& history,
                              const std::optional<api::HorizontalPodAutoscalerBehavior>& behavior,
                              const NormalizationInput& input, Duration window) {
  if (behavior) {
    return normalizeWithBehavior(history.recommendations, history.scaleUpEvents,
                                 history.scaleDownEvents, *behavior, input, window);
  }
  return normalizeWithoutBehavior(history.recommendations, input, window);
}

void recordScaleEvent(const api::HorizontalPodAutoscalerBehavior& behavior,
                      std::vector<api::TimestampedScaleEvent>& scaleUpEvents,
                      std::vector<api::TimestampedScaleEvent>& scaleDownEvents,
                      std::int32_t previousReplicas, std::int32_t newReplicas, Time now) {
  if (newReplicas > previousReplicas) {
    storeEvent(scaleUpEvents, longestPeriod(api::defaultedScaleUpRules(behavior.scaleUp)),
               newReplicas - previousReplicas, now);
  } else {
    storeEvent(scaleDownEvents, longestPeriod(api::defaultedScaleDownRules(behavior.scaleDown)),
               previousReplicas - newReplicas, now);
  }
}

}  // namespace hpa::replicacalc
