#pragma once

// Per-HPA controls that upstream has not shipped, read from the HPA's `hpa-controller.io/`
// annotations (clusters do not serve new HPA fields). One parser for the reconcile, the runner
// (sync period) and `explain`. An HPA without them behaves exactly as upstream's.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/hpa.h"
#include "common/time.h"
#include "controls/fallback.h"
#include "controls/schedule.h"
#include "replicacalc/requests.h"

namespace hpa::controls {

inline constexpr const char* kSyncPeriodAnnotation = "hpa-controller.io/sync-period";
inline constexpr const char* kPausedAnnotation = "hpa-controller.io/paused";
inline constexpr const char* kPodSelectionAnnotation = "hpa-controller.io/pod-selection";
inline constexpr const char* kRequestsSourceAnnotation = "hpa-controller.io/requests-source";
inline constexpr const char* kRecordDecisionAnnotation = "hpa-controller.io/record-decision";
inline constexpr const char* kSyncPeriodField = "spec.syncPeriodSeconds";

// KEP-6003's bounds for a per-HPA sync period.
inline constexpr Duration kMinSyncPeriod = std::chrono::seconds(1);
inline constexpr Duration kMaxSyncPeriod = std::chrono::hours(1);

// Which pods of the target's selector a pod-based metric counts (KEP-5325's strategies).
enum class PodSelection {
  LabelSelector,    // every pod the selector matches, as upstream
  OwnerReferences,  // only pods whose controller-owner chain leads to the scale target
};
const char* podSelectionName(PodSelection selection);
const char* requestsSourceName(replicacalc::RequestsSource source);

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
  bool paused = false;
  PodSelection podSelection = PodSelection::LabelSelector;
  replicacalc::RequestsSource requestsSource = replicacalc::RequestsSource::Spec;
  std::optional<FallbackSpec> fallback;  // hpa-controller.io/fallback (fallback.h)
  bool recordDecision = false;           // write hpa-controller.io/last-decision (last_decision.h)
  std::vector<ScheduleWindow> schedule;  // hpa-controller.io/schedule (schedule.h)
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

class ScheduleCache;
// Reads the controls of an HPA; never fails (bad values become `errors`). With `schedules`, the
// schedule is parsed once per change of its text and HPA (the reconcile's case).
HpaControls parseControls(const api::HorizontalPodAutoscaler& hpa,
                          ScheduleCache* schedules = nullptr);

}  // namespace hpa::controls
