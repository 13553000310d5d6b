#pragma once

// Internal to the controller: the state and steps of one reconcile of one HPA.

#include <optional>
#include <string>
#include <vector>

#include "api/hpa.h"
#include "api/scale.h"
#include "controller/horizontal_controller.h"
#include "controller/schedule.h"
#include "replicacalc/tolerances.h"

namespace hpa::controller {

class HorizontalController::Reconcile {
 public:
  // `decide`: a decision that keeps nothing (HorizontalController::decide); nullptr: a reconcile.
  Reconcile(HorizontalController& controller, const api::HorizontalPodAutoscaler& hpa, std::string key,
            const DecideOptions* decide = nullptr);

  // Upstream's reconcileAutoscaler; fills the report.
  Status run();
  ReconcileReport& report() { return report_; }
  const std::string& action() const { return action_; }

 private:
  // --- the phases of run() (reconcile.cc), as upstream's reconcileAutoscaler has them: read the
  // target's scale; decide from the replica bounds, or from the metrics normalized; hold the
  // decision while paused; rescale; write the status.
  struct Decision {
    std::int32_t currentReplicas = 0;
    std::int32_t minReplicas = 1;
    std::int32_t maxReplicas = 1;  // the HPA's, or an open schedule window's
    std::int32_t desiredReplicas = 0;
    std::string reason;  // the rescale reason events and logs carry
    bool computeMetrics = true;
    bool rescale = true;
    bool pauseSuppressedRescale = false;
    // Gate HPAScaleToZero: the HPA's ScaledToZero condition is true (we scaled it to zero).
    bool scaledToZero = false;
    bool hasObjectOrExternalMetrics = false;
    std::vector<api::MetricStatus> metricStatuses;
    std::optional<Error> metricsError;  // some metrics failed, yet the others decided
  };
  Result<api::Scale> readScale();
  Decision decideWithinBounds(const api::Scale& scale);
  // The metrics' proposal, normalized; the error to return when no metric could decide.
  std::optional<Error> decideFromMetrics(const api::Scale& scale, Decision& d);
  Error failedComputeMetrics(const Error& error, const Decision& d);
  void holdIfPaused(Decision& d);
  Status rescaleTarget(const api::Scale& scale, const Decision& d);
  // Upstream's retry.RetryOnConflict around the scale update, waiting through the clock.
  Status updateScaleWithRetry(api::Scale update, std::int32_t desiredReplicas);
  Error failedRescale(const Error& err, const Decision& d);
  void succeededRescale(const Decision& d);
  void keepScale(Decision& d);
  Status writeStatus(Decision& d);

  // --- target resolution (reconcile.cc)
  Result<api::Scale> resolveScale();
  Status failedGetScale(const Error& conditionError, const Error& returned);

  // --- metrics (metric_evaluation.cc)
  struct MetricsOutcome {
    std::int32_t replicas = -1;  // -1: cannot act
    std::string metricName;
    std::vector<api::MetricStatus> statuses;
    std::optional<Error> error;
  };
  // A failed metric: the condition reason, the error its condition and event carry, and the
  // error it returns (upstream wraps some of them once more than the condition shows).
  struct MetricFailure {
    std::string reason;
    Error conditionError;
    Error returned;
  };
  struct MetricInputs {
    const api::Scale& scale;
    const api::Selector& podSelector;
  };
  MetricsOutcome computeReplicasForMetrics(const api::Scale& scale);
  Result<api::Selector> validateAndParseSelector(const std::string& selectorText);
  // One metric: fills `report` (name, proposal, status, calculation) or returns the error that
  // computeReplicasForMetrics counts, setting `failureCondition`.
  std::optional<Error> computeReplicasForMetric(const api::MetricSpec& spec, const MetricInputs& in,
                                                MetricReport& report,
                                                api::HorizontalPodAutoscalerCondition& failureCondition);
  std::optional<MetricFailure> evaluateObject(const api::ObjectMetricSource& source, const api::Selector& metricSelector,
                                              const MetricInputs& in, MetricReport& report);
  std::optional<MetricFailure> evaluatePods(const api::PodsMetricSource& source, const api::Selector& metricSelector,
                                            const MetricInputs& in, MetricReport& report);
  std::optional<Error> evaluateResource(const std::string& resource, const std::string& container,
                                        bool containerMetric, const api::MetricTarget& target,
                                        const MetricInputs& in, MetricReport& report);
  std::optional<MetricFailure> evaluateExternal(const api::ExternalMetricSource& source, const MetricInputs& in,
                                                MetricReport& report);
  Result<std::vector<const api::Pod*>> listPods(const api::Selector& selector);
  // How old a per-pod metrics answer shared with other HPAs may be for this one: half its own
  // sync period (the global one unless it has its own), zero for a decision that reads fresh.
  Duration metricsMaxAge() const;
  // Owner-based pod selection: whether the pod's controller chain leads to the scale target.
  Result<bool> controlledByTarget(const api::Pod& pod);
  // Records, for explain, the pods whose requests-source matters for a utilization metric.
  void noteResizingPods(const std::vector<const api::Pod*>& pods, const std::string& resource,
                        const std::string& container);
  // hpa-controller.io/fallback (fallback.h): counts the failure of metric `index` and, once its
  // fallback is due, fills the metric's proposal from it (true: the metric counts as valid).
  bool fallBack(std::size_t index, const Error& error, std::int32_t currentReplicas, MetricReport& report);
  void metricSucceeded(std::size_t index);
  // The ScalingActive condition and the MetricFallback / MetricFallbackEnded events when
  // `fallbackCount` failed metrics proposed their fallback (fallback_status.cc).
  void reportFallbackTransitions(int fallbackCount);
  // Upstream's getUnableComputeReplicaCountCondition: emits the metric's Warning event.
  api::HorizontalPodAutoscalerCondition unableToCompute(const std::string& reason, const Error& error);

  std::vector<api::SharedPods> listedPods_;  // keeps listed pods alive
  // The last successful listPods: the selector check and the metric read the same pods, listed
  // once per reconcile.
  std::optional<api::Selector> lastListedSelector_;
  std::vector<const api::Pod*> lastListed_;
  const DecideOptions* decide_ = nullptr;

  // --- hpa-controller.io/schedule (schedule_status.cc)
  // The bounds of the open windows replace the HPA's own in `d` (no-op without a schedule).
  void applySchedule(Decision& d);
  // Outside the metrics path: the size a window's bound imposes, with its reason and condition.
  // True when a window's bound (not the HPA's own) is the one the current size is outside of.
  bool holdToScheduleBound(Decision& d, bool aboveMax);
  // The metrics' proposal held within an open window's bounds before stabilization, so that the
  // history remembers the floor and the stabilization window smooths the way down after it
  // closes. Returns the bound's ScalingLimited condition to set after normalization, if one held.
  std::optional<api::HorizontalPodAutoscalerCondition> holdProposalInWindow(Decision& d);
  // After normalization: the window's condition, when its bound is the size decided.
  void settleScheduleLimit(const Decision& d, const api::HorizontalPodAutoscalerCondition& limited);
  std::optional<ScheduledBounds> bounds_;

  // --- normalization, rescale, status (reconcile.cc)
  std::int32_t normalize(std::int32_t currentReplicas, std::int32_t proposed, std::int32_t minReplicas,
                         std::int32_t maxReplicas);
  void setStatus(std::int32_t currentReplicas, std::int32_t desiredReplicas, std::vector<api::MetricStatus> statuses,
                 bool rescaled);
  Status updateStatusIfNeeded();
  // Where the reconcile goes on after a failed status write, the failure is only logged.
  void updateStatusOrLog();
  // Keeps the history for the next reconcile (and the report).
  void storeHistory();
  // The controls' part of the status (hpa_controls.cc): the pause condition and its events,
  // invalid control values in the ScalingActive message and their events. Runs before every
  // status write, on every path.
  void applyControlsToStatus();
  void event(const std::string& type, const std::string& reason, const std::string& message);
  void condition(const std::string& type, const std::string& status, const std::string& reason,
                 const std::string& message);
  api::AutoscalerHistory& history();

  HorizontalController& c_;
  api::HorizontalPodAutoscaler hpa_;  // working copy; the cache is never mutated
  api::HorizontalPodAutoscalerStatus originalStatus_;
  std::string key_;
  Time now_;
  replicacalc::Tolerances tolerances_;
  HpaControls controls_;
  ReconcileReport report_;
  std::optional<api::AutoscalerHistory> history_;
  std::string action_ = kActionNone;
  GroupVersionResource targetResource_;
};

}  // namespace hpa::controller
