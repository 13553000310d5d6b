#pragma once

// The hpa-controller.io/fallback control: what a metric that keeps failing proposes instead of
// blocking the decision. Upstream keeps the current size when every metric fails and refuses to
// scale down while any fails; with a fallback, a metric that has failed long enough proposes a
// size of its own, and the maximum with the metrics that still work stands (so a fallback never
// hides a higher working recommendation). Pure rules; the reconcile keeps the failure runs.
//
//   hpa-controller.io/fallback: "after=3,replicas=6"                      3 failed syncs in a row
//   hpa-controller.io/fallback: "after=2m,behavior=current-if-higher,replicas=6"   failing for 2m

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/time.h"

namespace hpa::controls {

inline constexpr const char* kFallbackAnnotation = "hpa-controller.io/fallback";

// KEDA's vocabulary, in the annotation's spelling.
enum class FallbackBehavior {
  Static,           // `replicas`
  Current,          // the target's current size
  CurrentIfHigher,  // max(current, replicas)
  CurrentIfLower,   // min(current, replicas)
};
const char* fallbackBehaviorName(FallbackBehavior behavior);

struct FallbackSpec {
  // The threshold: failures in a row (one per sync of the HPA), or how long the metric has failed.
  std::optional<int> afterFailures;
  std::optional<Duration> afterDuration;
  FallbackBehavior behavior = FallbackBehavior::Static;
  std::int32_t replicas = 0;  // unused by Current
  bool operator==(const FallbackSpec&) const = default;
};

// Parses the annotation's value: comma-separated key=value pairs, `after` required, `replicas`
// required unless behavior=current. The error says what is wrong in the user's terms.
Result<FallbackSpec> parseFallback(std::string_view text);
// The value as the annotation would spell it ("after=3,replicas=6").
std::string formatFallback(const FallbackSpec& spec);

// One metric's failures since it last worked.
struct FailureRun {
  Time since;        // the first failed sync of the run
  int failures = 0;  // failed syncs in a row, this one included
  bool operator==(const FailureRun&) const = default;
};

// Whether the run has reached the fallback's threshold at `now`.
bool fallbackDue(const FallbackSpec& spec, const FailureRun& run, Time now);
// What the failed metric proposes once the fallback is due.
std::int32_t fallbackReplicas(const FallbackSpec& spec, std::int32_t currentReplicas);

}  // namespace hpa::controls
