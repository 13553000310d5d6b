#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/history.h"
#include "api/hpa.h"
#include "api/scale.h"
#include "controller/hpa_controls.h"
#include "replicacalc/normalization.h"
#include "replicacalc/replica_calculator.h"

namespace hpa::controller {

// What one reconcile saw and decided, step by step. The daemon logs a line of it; `explain`
// prints all of it. Building it costs little next to the API calls a reconcile makes.

struct RecordedEvent {
  std::string type;  // Normal / Warning
  std::string reason;
  std::string message;
  bool operator==(const RecordedEvent&) const = default;
};

// A failed metric that proposed its fallback's size instead (hpa-controller.io/fallback).
struct FallbackReport {
  std::string metric;         // which metric, from its spec ("cpu resource", "queue_depth external")
  FailureRun run;             // the metric's failed syncs so far
  std::int32_t replicas = 0;  // what it proposed
  bool operator==(const FallbackReport&) const = default;
};

struct MetricReport {
  std::string type;                                      // spec.metrics[i].type
  std::string name;                                      // upstream's metric name text, once computed
  std::optional<std::int32_t> proposal;                  // replicas this metric asks for
  std::optional<replicacalc::Calculation> calculation;   // the calculator's explanation
  std::optional<std::string> error;                      // the metric's error (inner text, as in its event)
  std::string conditionReason;                           // FailedGet...Metric when it failed
  std::optional<FallbackReport> fallback;                // failed, and its fallback proposed instead
  api::MetricStatus status;                              // the status.currentMetrics entry
};

// What the per-HPA controls (hpa_controls.h) were and what they changed in this reconcile.
struct ControlsReport {
  HpaControls controls;
  // Paused: the size the reconcile would have given the target (its scale update was skipped).
  std::optional<std::int32_t> pausedScaleTo;
  bool pauseStarted = false;  // this reconcile saw the pause begin (ScalingPaused event)
  bool pauseEnded = false;    // ... or end (ScalingResumed event)
  bool fallbackStarted = false;  // a failed metric's fallback began to propose (MetricFallback event)
  bool fallbackEnded = false;    // ... or stopped (MetricFallbackEnded event)
  // The HPA carries hpa-controller.io/last-decision (to be removed once it stops recording).
  bool lastDecisionStored = false;
  // Pods of a utilization metric whose in-place resize had not caught up: their request as in
  // spec and as actuated (requests-source says which one counted).
  struct ResizingPod {
    std::string pod;
    std::string resource;
    std::int64_t specRequest = 0;      // milli
    std::int64_t actuatedRequest = 0;  // milli
    bool operator==(const ResizingPod&) const = default;
  };
  std::vector<ResizingPod> resizingPods;
  // hpa-controller.io/schedule: the windows open at this reconcile and the bounds they make.
  struct OpenScheduleWindow {
    std::string name;
    Time openedAt;
    Time closesAt;
    std::optional<std::int32_t> minReplicas;
    std::optional<std::int32_t> maxReplicas;
    bool operator==(const OpenScheduleWindow&) const = default;
  };
  struct Schedule {
    std::vector<OpenScheduleWindow> open;
    std::int32_t minReplicas = 0;  // the bounds that applied: the HPA's own, raised or lowered
    std::int32_t maxReplicas = 0;
    std::string minFrom;  // the window that set the floor ("" for the HPA's own)
    std::string maxFrom;  // ... the ceiling
    // A window's bound decided the size (the ScheduledMinReplicas / ScheduledMaxReplicas limit).
    bool held = false;
    bool operator==(const Schedule&) const = default;
  };
  std::optional<Schedule> schedule;  // only for an HPA with a schedule
  // Owner-based pod selection: pods the label selector picked whose controller chain does not
  // lead to the scale target, so they were not counted.
  std::vector<std::string> podsNotOwned;
};

// Which branch of upstream's reconcile decided.
enum class ReconcileBranch {
  Deleted,          // the HPA is gone: history dropped
  FailedGetScale,   // target resolution failed
  ScalingDisabled,  // target at zero replicas, not to be scaled from zero
  AboveMaxReplicas,
  BelowMinReplicas,
  MetricsFailed,    // no usable metric (or would scale down with a failed metric)
  Metrics,          // computed from metrics
};
const char* branchName(ReconcileBranch branch);

struct ReconcileReport {
  std::string key;
  ReconcileBranch branch = ReconcileBranch::Metrics;
  std::optional<api::Scale> scale;
  std::string scaleTarget;  // "Kind/namespace/name", upstream's reference
  std::int32_t currentReplicas = 0;
  std::int32_t minReplicas = 0;
  std::int32_t maxReplicas = 0;
  std::optional<std::int32_t> metricReplicas;  // max over the valid metric proposals
  std::string metricName;                      // the metric that gave it
  std::vector<MetricReport> metrics;
  std::optional<replicacalc::NormalizationResult> normalization;
  std::int32_t desiredReplicas = 0;  // as written to status.desiredReplicas
  bool rescale = false;              // a scale update was attempted
  bool rescaled = false;             // and succeeded
  std::string reason;                // upstream's rescale reason ("... above target", ...)
  api::HorizontalPodAutoscalerStatus status;  // the status after this reconcile
  bool statusChanged = false;                 // semantically different from the status read
  bool statusWritten = false;                 // and written successfully
  std::vector<RecordedEvent> events;
  ControlsReport controls;
  std::optional<api::AutoscalerHistory> history;  // the controller's memory after this reconcile
  std::string error;                              // the error the reconcile returned, if any
};

}  // namespace hpa::controller
