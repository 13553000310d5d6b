#pragma once

// Per-HPA controls that upstream has not shipped, read from the HPA's `hpa-controller.io/`
// annotations (clusters do not serve new HPA fields). One parser for the reconcile, the runner
// (sync period) and `explain`. An HPA without them behaves exactly as upstream's.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/hpa.h"
#include "api/metric_route.h"
#include "common/time.h"
#include "controls/fallback.h"
#include "controls/forecast_spec.h"
#include "controls/metric_sources.h"
#include "controls/schedule.h"
#include "replicacalc/requests.h"

namespace hpa::controls {

inline constexpr const char* kSyncPeriodAnnotation = "hpa-controller.io/sync-period";
inline constexpr const char* kPausedAnnotation = "hpa-controller.io/paused";
inline constexpr const char* kPodSelectionAnnotation = "hpa-controller.io/pod-selection";
inline constexpr const char* kRequestsSourceAnnotation = "hpa-controller.io/requests-source";
inline constexpr const char* kRecordDecisionAnnotation = "hpa-controller.io/record-decision";
inline constexpr const char* kCpuInitializationPeriodAnnotation =
    "hpa-controller.io/cpu-initialization-period";
inline constexpr const char* kInitialReadinessDelayAnnotation =
    "hpa-controller.io/initial-readiness-delay";
inline constexpr const char* kWithinToleranceKeepAnnotation =
    "hpa-controller.io/within-tolerance-keep";
inline constexpr const char* kSyncPeriodField = "spec.syncPeriodSeconds";

// KEP-6003's bounds for a per-HPA sync period.
inline constexpr Duration kMinSyncPeriod = std::chrono::seconds(1);
inline constexpr Duration kMaxSyncPeriod = std::chrono::hours(1);
// The bounds of a per-HPA start-up window (cpu initialization period, initial readiness delay).
inline constexpr Duration kMaxStartupWindow = std::chrono::hours(1);

// Which pods of the target's selector a pod-based metric counts (KEP-5325's strategies).
enum class PodSelection {
  LabelSelector,    // every pod the selector matches, as upstream
  OwnerReferences,  // only pods whose controller-owner chain leads to the scale target
};
const char* podSelectionName(PodSelection selection);

// What hpa-controller.io/paused holds: nothing, every scale update, or the updates in one
// direction (KEDA 2.18's scale-in / scale-out pauses). Named by the direction held.
enum class Pause {
  None,       // false: upstream's behavior
  Both,       // true: no scale update at all
  ScaleUp,    // no scale-up; scale-down stays live
  ScaleDown,  // no scale-down; scale-up stays live
};
// The annotation's value: "false", "true", "ScaleUp", "ScaleDown".
const char* pauseName(Pause pause);
// What it holds, in the words of logs and explain: "not paused", "paused", "scale-up paused",
// "scale-down paused".
const char* pauseWords(Pause pause);
// Whether `pause` holds a move from `current` to `desired` replicas.
bool pauseHolds(Pause pause, std::int32_t current, std::int32_t desired);
const char* requestsSourceName(replicacalc::RequestsSource source);
// hpa-controller.io/within-tolerance-keep's values: "Status", "Spec".
const char* withinToleranceKeepName(replicacalc::WithinToleranceKeep keep);

// An unusable control value; the control's default applies.
struct ControlError {
  std::string control;  // the annotation key or the spec field
  std::string value;
  std::string reason;   // the Warning event's reason: InvalidSyncPeriod, InvalidControl
  std::string message;  // says what was wrong and what applies instead
  bool operator==(const ControlError&) const = default;
};

struct HpaControls {
  std::optional<Duration> syncPeriod;  // nullopt: --horizontal-pod-autoscaler-sync-period
  std::string syncPeriodSource;        // the annotation or spec field it came from
  Pause pause = Pause::None;
  PodSelection podSelection = PodSelection::LabelSelector;
  replicacalc::RequestsSource requestsSource = replicacalc::RequestsSource::Spec;
  std::optional<FallbackSpec> fallback;  // hpa-controller.io/fallback (fallback.h)
  bool recordDecision = false;           // write hpa-controller.io/last-decision (last_decision.h)
  std::vector<ScheduleWindow> schedule;  // hpa-controller.io/schedule (schedule.h)
  // This HPA's start-up windows (kubernetes#105233); nullopt: the flag's value.
  std::optional<Duration> cpuInitializationPeriod;  // --...-cpu-initialization-period
  std::optional<Duration> initialReadinessDelay;    // --...-initial-readiness-delay
  // What a per-pod Object/External target keeps within the tolerance (kubernetes#138505).
  replicacalc::WithinToleranceKeep withinToleranceKeep = replicacalc::WithinToleranceKeep::Status;
  // hpa-controller.io/metric-sources (metric_sources.h): one per spec.metrics entry; empty when
  // the annotation is absent or invalid.
  std::vector<std::optional<api::MetricRoute>> metricRoutes{};
  // hpa-controller.io/forecast (forecast_spec.h): a metric's forecast and the floor it makes.
  std::optional<ForecastSpec> forecast{};
  std::vector<ControlError> errors;
  bool operator==(const HpaControls&) const = default;

  // Whether any control departs from upstream's behavior (or was given and rejected).
  bool any() const;
  // The errors as one sentence ("" when none), as the condition message carries them.
  std::string errorText() const;
};

// Every annotation parseControls reads: the sync period's, then the others in the order their
// errors are reported. The one list of them (`handback` says what each stops doing).
std::vector<std::string_view> controlAnnotations();

// The controls in effect that make this HPA's decisions differ from upstream's by design, as
// "annotation: value" (an invalid value is not in effect): shadow mode does not compare such an
// HPA with kube-controller-manager, which does not read them. The sync period (the shadow
// decides at the other controller's instants) and the recorded decision (bookkeeping) are not
// among them. Empty for an HPA decided as upstream decides it.
std::vector<std::string> decisionChangingControls(const HpaControls& controls);

class ScheduleCache;
// Reads the controls of an HPA; never fails (bad values become `errors`). With `schedules`, the
// schedule is parsed once per change of its text and HPA (the reconcile's case).
HpaControls parseControls(const api::HorizontalPodAutoscaler& hpa,
                          ScheduleCache* schedules = nullptr);

}  // namespace hpa::controls
