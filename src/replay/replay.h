#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/hpa.h"
#include "api/metric_units.h"
#include "api/pod.h"
#include "api/scale.h"
#include "common/result.h"
#include "controller/horizontal_controller.h"
#include "replay/provisioning.h"
#include "replay/trace.h"
#include "report/reconcile_report.h"

namespace hpa::replay {

struct ReplayOptions {
  controller::ControllerOptions
      controller;  // the --horizontal-pod-autoscaler-* flags, the sync period among them
  // What one reconcile takes. Upstream's work queue re-adds an HPA a sync period after its
  // reconcile ends, so syncs come this much more than a sync period apart; it matters at window
  // edges: a recommendation exactly one window old still counts (upstream drops only older
  // ones), which in a cluster never happens because of this drift. 50 ms is what the demo's
  // daemon measured (5.03 - 5.2 s apart at a 5 s sync period).
  Duration reconcileDuration = std::chrono::milliseconds(50);
  Duration readinessDelay = std::chrono::seconds(30);  // a new pod's creation to Ready
  // The window metrics report (metrics-server's resolution); the cpu-initialization rule
  // ignores a new pod's sample until its Ready time plus this window.
  Duration metricWindow = std::chrono::seconds(30);
  std::optional<Duration> duration;  // default: to the trace's last sample
};

// What the replay needs of the scale target: its Scale (name, namespace, replicas at the start,
// selector) and kind, and the pod template its pods are made from (labels, requests).
struct ReplayTarget {
  std::string
      kind;  // the scaleTargetRef's: Deployment, StatefulSet, ..., or a custom resource's kind
  api::Scale scale;
  api::Pod podTemplate;
};

// One HPA metric at one tick.
struct TickMetric {
  std::string name;                   // the series
  std::optional<std::int64_t> value;  // the trace value (milli), nullopt before its first sample
  std::optional<std::int32_t> utilization;  // what the controller computed, for utilization targets
  std::optional<std::int64_t> usage;  // otherwise: milli, per pod or the object/external value
  std::optional<std::int32_t> proposal;
  std::optional<std::string> error;
  api::MetricUnit unit = api::MetricUnit::Number;  // how its milli values read (api/metric_units.h)
};

// What the forecast control (hpa-controller.io/forecast) made at one sync, when it made one.
struct TickForecast {
  double value = 0;  // the metric's total at now + lead, in its unit (cpu: cores)
  Duration lead{0};  // how far ahead
  double confidence = 0;
  std::string cycle;                  // the cycle it repeats: "daily", "weekly"
  std::optional<std::int32_t> floor;  // the replicas it needs, within the HPA's bounds
};

// One sync of the controller.
struct Tick {
  Duration at{0};
  std::vector<TickMetric> metrics;
  std::int32_t currentReplicas = 0;        // the target's replicas the controller read
  std::optional<std::int32_t> proposed;    // the highest metric proposal
  std::optional<std::int32_t> stabilized;  // after the stabilization window
  std::int32_t desiredReplicas = 0;        // status.desiredReplicas written
  std::int32_t replicas = 0;               // the target's replicas after the sync
  int pods = 0;                            // after the sync
  int readyPods = 0;                       // at the sync (what the metrics were spread over)
  std::string branch;                      // upstream's reconcile branch
  std::string stabilizedReason;   // ScaleUpStabilized / ScaleDownStabilized when a window held
  std::string stabilizedMessage;  // the condition's message, as the controller wrote it
  std::string limitedReason;      // ScalingLimited reason when True
  std::string limitedMessage;
  std::optional<TickForecast> forecast;
  std::vector<report::RecordedEvent> events;
  std::string error;
};

struct ScaleChange {
  Duration at{0};
  std::int32_t from = 0;
  std::int32_t to = 0;
  std::string message;  // the SuccessfulRescale event's
};

struct ReplayRun {
  std::string label;        // "a", "b": set by the caller
  std::string description;  // what distinguishes the run ("behavior.scaleDown.selectPolicy=Min");
                            // may be empty
  std::string hpaKey;
  api::HorizontalPodAutoscaler hpa;  // as replayed (overrides applied), without status
  std::vector<Tick> ticks;
  std::vector<ScaleChange> changes;
  std::int32_t initialReplicas = 0;
  std::int32_t peakReplicas = 0;
  std::int32_t finalReplicas = 0;
  Provisioning provisioning;  // over the whole run
};

// Replays `trace` through the controller's real reconcile: a clock stepped by the sync period,
// the simulated workload following the replicas the controller sets, the metrics APIs serving
// the trace's values. Errors are unusable input (a metric without a series, a target that does
// not match the HPA); what the controller decides, failures included, is in the ticks.
Result<ReplayRun> replay(const api::HorizontalPodAutoscaler& hpa, const ReplayTarget& target,
                         const Trace& trace, const ReplayOptions& options);

// The tolerance above which a run's pods count as above target (Provisioning): the HPA's own
// scale-up tolerance (behavior.scaleUp.tolerance) when it sets one, else the controller's.
double scaleUpTolerance(const api::HorizontalPodAutoscaler& hpa, const ReplayOptions& options);

}  // namespace hpa::replay
