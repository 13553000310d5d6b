// The fallback control's part of a reconcile's status and events: ScalingActive says, while
// failed metrics propose their fallback, which ones; a Warning event marks the start and a
// Normal one the end. Transitions are read from the condition as stored, so a restart or a
// failover does not announce them again.

#include <fmt/format.h>

#include "controller/conditions.h"
#include "controller/reconcile.h"

namespace hpa::controller {
namespace {

constexpr const char* kMetricFallback = "MetricFallback";
constexpr const char* kMetricFallbackEnded = "MetricFallbackEnded";

std::string failures(int count) { return count == 1 ? "once" : fmt::format("{} times in a row", count); }

}  // namespace

void HorizontalController::Reconcile::reportFallbackTransitions(int fallbackCount) {
  const auto* before = findCondition(originalStatus_, api::kScalingActive);
  const bool wasFallingBack = before && before->reason == kMetricFallback;
  if (fallbackCount == 0) {
    if (wasFallingBack) {
      report_.controls.fallbackEnded = true;
      event(kEventNormal, kMetricFallbackEnded, "No metric proposes its fallback any more: the metrics decide again");
    }
    return;
  }
  std::string fallenBack;
  for (const auto& m : report_.metrics) {
    if (!m.fallback) continue;
    if (!fallenBack.empty()) fallenBack += ", ";
    fallenBack += m.fallback->metric;
  }
  // No counts or times here: the message stays the same while the fallback lasts, so the status
  // is not rewritten every sync.
  condition(api::kScalingActive, api::kConditionTrue, kMetricFallback,
            fmt::format("the HPA computed the replica count with the fallback of failed metrics ({}: {}); the "
                        "working metrics still count",
                        kFallbackAnnotation, fallenBack));
  if (wasFallingBack) return;
  report_.controls.fallbackStarted = true;
  for (const auto& m : report_.metrics) {
    if (!m.fallback) continue;
    event(kEventWarning, kMetricFallback,
          fmt::format("The {} failed {} since {}: its fallback ({}) proposes {} replicas; last error: {}",
                      m.fallback->metric, failures(m.fallback->run.failures), formatRFC3339(m.fallback->run.since),
                      formatFallback(*controls_.fallback), m.fallback->replicas, m.error.value_or("")));
  }
}

}  // namespace hpa::controller
