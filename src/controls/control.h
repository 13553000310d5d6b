#pragma once

// The seam between the reconcile and the per-HPA controls. The reconcile calls a Control at fixed
// points of its run and knows no control by name; each control changes a decision only when its
// HPA asks for it (its annotation is set), so an HPA without controls is decided exactly as
// upstream decides it. Adding a control adds a class here and a line to ControlChain, and edits
// the reconcile only when it needs a point that is not among these.
//
// The points, in the order of a reconcile (upstream's reconcileAutoscaler):
//   beforeMetrics    the replica bounds, and how the metrics are read and counted (the requests,
//                    the pods, the start-up windows, where each metric is read from)
//   requestsCounted  a utilization metric is about to count its pods' requests
//   metricFailed     a metric failed: a control may propose a size for it instead
//   metricSucceeded  a metric worked
//   afterMetrics     every metric was read (whether or not they could decide)
//   afterProposal    a size was proposed: outside the bounds, from the metrics, once normalized,
//                    and before the scale update; a control may hold it
//   beforeWrite      before every status write, on every path
//   forget           the HPA was deleted
//
// What the reconcile takes back from the points it names by what they are, not by the control
// that set them: MetricsSetup's bounds, metrics age, requests source, pod filter, start-up
// windows and metric routes; a failed
// metric's proposal, which is a fallback wherever it is shown (FailedMetric::fallback: the
// reconcile counts it as the metric's proposal and names the metric "<label> (fallback)" in the
// rescale reason); a held rescale (Proposal::rescaleHeld: the status keeps the size it would
// choose).
//
// Outside the reconcile, three places name controls, for what no point can do:
//   - the run loop (controller/run_loop.cc) requeues an HPA after the sync period its controls
//     set, at once when its controls change, and publishes the recorded decision
//     (hpa-controller.io/last-decision): the queue is the run loop's, and the decision is written
//     after the reconcile, by the leader only, from the whole report, which no control sees (the
//     report sits above this room);
//   - the reports (src/report/) name each control in the words they show: the summary, the
//     outcome's limit, the recorded decision;
//   - ControlChain, which builds them in their order.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/hpa.h"
#include "api/metric_route.h"
#include "api/pod.h"
#include "common/log.h"
#include "common/result.h"
#include "common/time.h"
#include "controls/controls_report.h"
#include "controls/hpa_controls.h"
#include "replicacalc/decision_rules.h"
#include "replicacalc/requests.h"

namespace hpa::controls {

// The reconcile as a control sees it. Implemented by the reconcile; valid during a hook call.
class ReconcileView {
 public:
  virtual ~ReconcileView() = default;
  virtual const std::string& key() const = 0;
  // The working copy: spec and metadata as read, the status as this reconcile builds it.
  virtual const api::HorizontalPodAutoscaler& hpa() const = 0;
  // A condition of the status as stored before this reconcile (null when absent): transitions
  // are read from it, so that a restart or a failover does not announce them again.
  virtual const api::HorizontalPodAutoscalerCondition* conditionRead(
      const std::string& type) const = 0;
  // A condition of the status being built (null when absent).
  virtual api::HorizontalPodAutoscalerCondition* conditionNow(const std::string& type) = 0;
  virtual Time now() const = 0;
  // False for a decision that keeps nothing (shadow mode's): controls then count nothing either.
  virtual bool keepsState() const = 0;
  virtual const HpaControls& controls() const = 0;
  virtual ControlsReport& controlsReport() = 0;
  virtual const Logger& logger() const = 0;
  virtual void condition(const std::string& type, const std::string& status,
                         const std::string& reason, const std::string& message) = 0;
  // Drops a condition of the status being built (a control's own type, once it is not asked for).
  virtual void dropCondition(const std::string& type) = 0;
  // This HPA's sync period and initial readiness delay in effect: its controls', else the flags'.
  virtual Duration syncPeriod() const = 0;
  virtual Duration initialReadinessDelay() const = 0;
  virtual void normalEvent(const std::string& reason, const std::string& message) = 0;
  virtual void warningEvent(const std::string& reason, const std::string& message) = 0;
  // The metrics read so far (afterMetrics: all of them): what failed and what a control proposed.
  virtual std::size_t metricCount() const = 0;
  virtual const std::optional<std::string>& metricError(std::size_t index) const = 0;
  virtual const std::optional<FallbackReport>& metricFallback(std::size_t index) const = 0;
};

// Which pods of the target's selector a metric counts, where a control narrows them.
class PodFilter {
 public:
  virtual ~PodFilter() = default;
  // Whether `pod` counts; an error when that cannot be known yet (an owner cache still syncing).
  virtual Result<bool> counts(ReconcileView& reconcile, const api::Pod& pod) const = 0;
};

// beforeMetrics: the bounds the decision keeps to (the HPA's own unless a control changes them),
// and how the metrics are read.
struct MetricsSetup {
  std::int32_t minReplicas = 1;
  std::int32_t maxReplicas = 1;
  Duration metricsMaxAge{0};  // how old a per-pod answer shared with other HPAs may be
  replicacalc::RequestsSource requestsSource = replicacalc::RequestsSource::Spec;
  const PodFilter* podFilter = nullptr;  // null: every pod the selector picks counts
  // This HPA's start-up windows; nullopt: the controller's (its flags').
  std::optional<Duration> cpuInitializationPeriod;
  std::optional<Duration> initialReadinessDelay;
  // What a per-pod Object/External target keeps within the tolerance (its release's rule unless
  // a control asks for spec's).
  replicacalc::WithinToleranceKeep withinToleranceKeep = replicacalc::WithinToleranceKeep::Status;
  // Where each of spec.metrics is read from (KEP-6382's metric source); empty, or nullopt for a
  // metric: its default API.
  std::vector<std::optional<api::MetricRoute>> metricRoutes{};
};

// requestsCounted: a utilization metric is about to count `pods`' requests of `resource` (of
// `container` when the metric names one), by `rules`.
struct CountedRequests {
  const std::vector<const api::Pod*>& pods;
  const std::string& resource;
  const std::string& container;
  const replicacalc::DecisionRules& rules;
};

// metricFailed: metric `index` of spec.metrics failed; a control may fill `fallback` (the metric
// then counts as valid with that proposal).
struct FailedMetric {
  std::size_t index = 0;
  const Error& error;
  bool specError = false;  // the spec is wrong (not an outage)
  std::int32_t currentReplicas = 0;
  std::optional<FallbackReport>& fallback;
};

// afterProposal: the size proposed and why, at one of the stages below.
struct Proposal {
  enum class Stage {
    OutsideBounds,  // the current size is outside the bounds: the bound is the proposal
    FromMetrics,    // the metrics' proposal, before stabilization and the rate limits
    Normalized,     // after them
    BeforeRescale,  // the final size, before the scale update
  };
  // A bound a control held the proposal to (FromMetrics): when normalization leaves the size
  // there, the bound decided it and the control sets `condition` (Normalized).
  struct Limit {
    std::int32_t replicas = 0;
    api::HorizontalPodAutoscalerCondition condition;
  };
  std::int32_t currentReplicas = 0;
  std::int32_t desiredReplicas = 0;
  std::string reason;        // the rescale reason events and logs carry
  bool aboveMax = false;     // OutsideBounds: above the maximum (else below the minimum)
  bool rescale = true;       // BeforeRescale: a control may hold the update
  bool rescaleHeld = false;  // ... and says so: the status then shows the size it would choose
  std::optional<Limit> limit;
};

class Control {
 public:
  virtual ~Control() = default;
  virtual void beforeMetrics(ReconcileView&, MetricsSetup&) {}
  virtual void requestsCounted(ReconcileView&, const CountedRequests&) {}
  virtual void metricFailed(ReconcileView&, FailedMetric&) {}
  virtual void metricSucceeded(ReconcileView&, std::size_t /*index*/) {}
  // `decided`: the metrics proposed a size (not every one failed, nor would a failed one be
  // overruled by a scale-down).
  virtual void afterMetrics(ReconcileView&, bool /*decided*/) {}
  virtual void afterProposal(ReconcileView&, Proposal::Stage, Proposal&) {}
  virtual void beforeWrite(ReconcileView&) {}
  virtual void forget(const std::string& /*key*/) {}
};

}  // namespace hpa::controls
