#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/history.h"
#include "api/hpa.h"
#include "api/scale.h"
#include "controls/controls_report.h"
#include "replicacalc/normalization.h"
#include "replicacalc/replica_calculator.h"

namespace hpa::report {

// What one reconcile saw and decided, step by step. The daemon logs a line of it; `explain`
// prints all of it. Building it costs little next to the API calls a reconcile makes.

struct RecordedEvent {
  std::string type;  // Normal / Warning
  std::string reason;
  std::string message;
  bool operator==(const RecordedEvent&) const = default;
};

struct MetricReport {
  std::string type;                      // spec.metrics[i].type
  std::string name;                      // upstream's metric name text, once computed
  std::optional<std::int32_t> proposal;  // replicas this metric asks for
  std::optional<replicacalc::Calculation> calculation;  // the calculator's explanation
  std::optional<std::string> error;  // the metric's error (inner text, as in its event)
  std::string conditionReason;       // FailedGet...Metric when it failed
  std::optional<controls::FallbackReport> fallback;  // failed, and a control proposed instead
  api::MetricStatus status;                          // the status.currentMetrics entry
  std::string source{};  // where it was read from when routed ("service ns/name:443"), else ""
};

// Which branch of upstream's reconcile decided.
enum class ReconcileBranch {
  Deleted,          // the HPA is gone: history dropped
  FailedGetScale,   // target resolution failed
  ScalingDisabled,  // target at zero replicas, not to be scaled from zero
  AboveMaxReplicas,
  BelowMinReplicas,
  MetricsFailed,  // no usable metric (or would scale down with a failed metric)
  Metrics,        // computed from metrics
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
  std::int32_t desiredReplicas = 0;           // as written to status.desiredReplicas
  bool rescale = false;                       // a scale update was attempted
  bool rescaled = false;                      // and succeeded
  std::string reason;                         // upstream's rescale reason ("... above target", ...)
  api::HorizontalPodAutoscalerStatus status;  // the status after this reconcile
  bool statusChanged = false;                 // semantically different from the status read
  bool statusWritten = false;                 // and written successfully
  std::vector<RecordedEvent> events;
  controls::ControlsReport controls;
  // Fields of the HPA the decision rules' release does not know or allow, and what that release
  // does with them (rules_notes.h); empty when the HPA uses none.
  std::vector<std::string> rulesNotes;
  std::optional<api::AutoscalerHistory> history;  // the controller's memory after this reconcile
  std::string error;                              // the error the reconcile returned, if any
  // Why it returned that error, as the reason of upstream's Warning Event that reported its cause
  // (empty when it succeeded): FailedGetScale; the first failed metric's FailedGet...Metric or
  // InvalidMetricSourceType; SelectorRequired, InvalidSelector or AmbiguousSelector;
  // FailedComputeMetricsReplicas when no metric or selector said more; FailedRescale;
  // FailedUpdateStatus.
  std::string failureReason;
  // The scale target does not exist: its Scale read answered NotFound (a FailedGetScale).
  bool targetNotFound = false;
};

}  // namespace hpa::report
