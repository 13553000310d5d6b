#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controller/event_recorder.h"
#include "controller/history_store.h"
#include "controller/listers.h"
#include "controller/reconcile_observer.h"
#include "controller/scale_client.h"
#include "controller/selector_store.h"
#include "controller/status_writer.h"
#include "controls/control_chain.h"
#include "controls/forecast_history.h"
#include "controls/owner_lookup.h"
#include "metricsclient/metric_routes.h"
#include "metricsclient/metrics_client.h"
#include "replicacalc/decision_rules.h"
#include "replicacalc/flag_defaults.h"
#include "replicacalc/normalization.h"
#include "replicacalc/pod_grouping.h"
#include "report/reconcile_report.h"

namespace hpa::controller {

// Whether the controller acts on its decisions or shadows another HPA controller (--shadow). In
// shadow mode its writers record what it would write and send nothing, its logs say "would" where
// they said "successfully", and a rescale it decides is not recorded in the history (it was not
// made; the one the other controller makes is, through recordObservedRescale). The composition
// root sets it once, and picks the writers by it.
enum class ControllerMode { Acting, Shadow };

// Settings that kube-controller-manager takes from its HPA flags (same defaults; the flags are
// defined in decision_flags.h), and the controller's mode.
struct ControllerOptions {
  // --horizontal-pod-autoscaler-sync-period: an HPA without a period of its own is reconciled
  // this often, and reads metrics no older than half of it.
  Duration syncPeriod = std::chrono::seconds(15);
  Duration downscaleStabilizationWindow = replicacalc::
      kDefaultDownscaleStabilization;  // --horizontal-pod-autoscaler-downscale-stabilization
  double tolerance = replicacalc::kDefaultTolerance;  // --horizontal-pod-autoscaler-tolerance
  Duration cpuInitializationPeriod = replicacalc::
      kDefaultCpuInitializationPeriod;  // --horizontal-pod-autoscaler-cpu-initialization-period
  Duration delayOfInitialReadinessStatus = replicacalc::
      kDefaultInitialReadinessDelay;  // --horizontal-pod-autoscaler-initial-readiness-delay
  // --decision-rules and --feature-gates: the release whose rules decide where releases differ,
  // and its gates (HPAScaleToZero: the ScaledToZero condition and scaling from zero;
  // HPAGeneration: status.observedGeneration is written; servers that do not know the field drop
  // it, and the controller notices and stops writing it).
  replicacalc::DecisionRules decisionRules{};
  ControllerMode mode = ControllerMode::Acting;
  // Keep a per-pod account in each metric's calculation (for `explain`; costs allocations).
  bool explainPods = false;
};

// Everything the controller talks to, as interfaces (owned elsewhere, outliving the controller).
struct ControllerDependencies {
  HpaLister& hpas;
  PodLister& pods;
  metricsclient::MetricsClient& metrics;
  ScaleClient& scales;
  StatusWriter& statusWriter;
  EventRecorder& events;
  Clock& clock;
  Logger logger;
  ReconcileObserver* observer = nullptr;  // optional
  // For hpa-controller.io/pod-selection: OwnerReferences; without it only a pod's own controller
  // can match the target (Pod -> StatefulSet, Pod -> ReplicaSet), not a chain.
  const controls::OwnerLookup* owners = nullptr;
  // The clients of metrics that name their source (KEP-6382); without them such a metric fails.
  metricsclient::MetricRoutes* routes = nullptr;
  // For hpa-controller.io/forecast: where a metric's history comes from (Prometheus in a cluster,
  // the trace in replay); without it a forecast has no history and sets no floor.
  controls::ForecastHistory* forecastHistory = nullptr;
};

// How HorizontalController::decide() departs from a reconcile: the inputs another controller
// decided from, which shadow mode's comparer hands over to decide as that controller did. They
// describe one decision, not a mode (the mode is ControllerOptions::mode).
struct DecideOptions {
  // The target's replica count to decide from instead of the one its Scale shows now: the count
  // another controller read before it scaled.
  std::optional<std::int32_t> currentReplicas;
  // Read the metrics now rather than reuse an answer fetched for another HPA (the other
  // controller read its own moments ago).
  bool freshMetrics = false;
  // Leave out pods created at or after this time: the other controller listed its pods before
  // the rescale that created them.
  std::optional<Time> podsCreatedBefore;
  // Stabilize over these recommendations instead of this controller's own: the other
  // controller's window, as its writes show it.
  std::optional<std::vector<api::TimestampedRecommendation>> recommendations;
};

struct ReconcileServices;

struct ReconcileResult {
  bool deleted = false;  // the HPA is gone: do not requeue
  Status status;         // the error upstream's reconcileKey would return
  report::ReconcileReport report;
};

// The reconcile of one HorizontalPodAutoscaler, as upstream's HorizontalController does it
// (pkg/controller/podautoscaler/horizontal.go, v1.37 behavior). Thread-safe for different keys;
// one key must not be reconciled by two threads at once (the work queue guarantees it).
class HorizontalController {
 public:
  HorizontalController(ControllerDependencies deps, ControllerOptions options);

  ReconcileResult reconcileKey(const std::string& key);

  // Decides for `hpa` as given (its spec and status, not the lister's copy) with this
  // controller's dependencies, and keeps nothing: the history is read, not changed, and the
  // decision is not counted as a reconcile. What it would write goes to the dependencies, so they
  // must be dry-run ones (shadow mode, which compares the decision with another controller's).
  // Never runs at the same time as a reconcile of the same HPA.
  ReconcileResult decide(const api::HorizontalPodAutoscaler& hpa, const DecideOptions& options);
  // Records a rescale another controller made (`from` -> `to` at `at`) in `hpa`'s history, as
  // this controller records its own, so that `behavior` policies count it. Dry-run mode only:
  // there this controller's own rescales are not made, and not recorded.
  void recordObservedRescale(const api::HorizontalPodAutoscaler& hpa, std::int32_t from,
                             std::int32_t to, Time at);

  // Informer-side bookkeeping (upstream's enqueueHPA / deleteHPA): registers the HPA's selector
  // slot (true when newly registered) / forgets it.
  bool hpaAdded(const std::string& key) { return selectors_.registerHpa(key); }
  void hpaDeleted(const std::string& key) { selectors_.remove(key); }
  // Registers `hpa` and records its target's selector for the ambiguous-selector check, as its
  // own reconcile would, without deciding anything (reads the target's Scale; no status,
  // events or history). `explain` reconciles one HPA of several; the daemon's controller has
  // reconciled the others before.
  void learnSelector(const api::HorizontalPodAutoscaler& hpa);

  HistoryStore& history() { return history_; }
  SelectorStore& selectors() { return selectors_; }
  const ControllerOptions& options() const { return options_; }

 private:
  // What a reconcile uses of this controller (reconcile.h).
  ReconcileServices services();

  // One of a fixed set of locks, by key: reconcileKey and decide of one HPA take turns.
  std::mutex& keyLock(const std::string& key);

  ControllerDependencies deps_;
  ControllerOptions options_;
  std::array<std::mutex, 64> keyLocks_;
  HistoryStore history_;
  SelectorStore selectors_;
  controls::ControlChain controls_;  // the per-HPA controls and what they remember per HPA
  NoopReconcileObserver noopObserver_;
  std::atomic<bool> observedGenerationAccepted_{true};
};

}  // namespace hpa::controller
