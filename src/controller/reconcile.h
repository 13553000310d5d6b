#pragma once

// Internal to the controller: the state and steps of one reconcile of one HPA.

#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/hpa.h"
#include "api/scale.h"
#include "controller/horizontal_controller.h"
#include "controls/control_chain.h"
#include "replicacalc/tolerances.h"

namespace hpa::controller {

// Whether a reconcile keeps what it learns.
enum class ReconcileMode {
  Reconcile,  // the run loop's: the history, the controls' counts and the selectors are kept
  Decide,     // HorizontalController::decide: reads the history, keeps nothing
};

// What a reconcile uses of the controller that runs it (all owned by the controller).
struct ReconcileServices {
  const ControllerDependencies& deps;
  const ControllerOptions& options;
  HistoryStore& history;
  SelectorStore& selectors;
  controls::ControlChain& controls;
  // Cleared once a server drops status.observedGeneration (it predates the field).
  std::atomic<bool>& observedGenerationAccepted;
};

// A failed step: the reason its condition and event carry, the error they show, and the error
// the reconcile returns (upstream wraps some of them once more than the condition shows).
struct Failure {
  std::string reason;
  Error shown;
  Error returned;

  static Failure of(std::string reason, const Error& error) {
    return Failure{std::move(reason), error, error};
  }
  // The same failure with `context` before the returned error (Go's fmt.Errorf("...: %w")).
  Failure wrap(std::string_view context) const {
    return Failure{reason, shown, returned.wrap(context)};
  }
};

// Upstream's reconcileAutoscaler for one HPA, filling a report of what it saw and decided. The
// per-HPA controls are called at their fixed points (controls/control.h) through the view this
// class gives them.
class Reconcile final : private controls::ReconcileView {
 public:
  // `decide` departs from a reconcile in Decide mode only.
  Reconcile(ReconcileServices& services, const api::HorizontalPodAutoscaler& hpa, std::string key,
            ReconcileMode mode, const DecideOptions& decide = {});

  Status run();
  report::ReconcileReport& report() { return report_; }
  const std::string& action() const { return action_; }

 private:
  // --- the phases of run() (reconcile.cc), as upstream's reconcileAutoscaler has them: read the
  // target's scale; decide from the replica bounds, or from the metrics normalized; let the
  // controls hold the decision; rescale; write the status.
  struct Decision : controls::Proposal {
    std::int32_t minReplicas = 1;
    std::int32_t maxReplicas = 1;  // the HPA's, or as a control set them
    bool computeMetrics = true;
    // Gate HPAScaleToZero: the HPA's ScaledToZero condition is true (we scaled it to zero).
    bool scaledToZero = false;
    bool hasObjectOrExternalMetrics = false;
    std::vector<api::MetricStatus> metricStatuses;
    std::optional<Error> metricsError;  // some metrics failed, yet the others decided
    std::string metricsErrorReason;     // the first failed metric's event reason
  };
  Result<api::Scale> readScale();
  Result<api::Scale> resolveScale();
  Error failedGetScale(const Failure& failure);
  Decision decideWithinBounds(const api::Scale& scale);
  // The metrics' proposal, normalized; the error to return when no metric could decide.
  Status decideFromMetrics(const api::Scale& scale, Decision& d);
  // `reason`: the event reason of what failed first (empty: none more precise than
  // FailedComputeMetricsReplicas).
  Error failedComputeMetrics(const Error& error, const std::string& reason, const Decision& d);
  void beforeRescale(Decision& d);
  Status rescaleTarget(const api::Scale& scale, const Decision& d);
  // Upstream's retry.RetryOnConflict around the scale update, waiting through the clock.
  Status updateScaleWithRetry(api::Scale update, std::int32_t desiredReplicas);
  Error failedRescale(const Error& err, const Decision& d);
  void succeededRescale(const Decision& d);
  void keepScale(Decision& d);
  Status writeStatus(Decision& d);

  // --- metrics (metric_evaluation.cc)
  struct MetricsOutcome {
    std::int32_t replicas = -1;  // -1: cannot act
    std::string metricName;
    std::vector<api::MetricStatus> statuses;
    std::optional<Error> error;
    std::string errorReason;  // the event reason of `error`'s cause, when an event reported it
  };
  struct MetricInputs {
    const api::Scale& scale;
    const api::Selector& podSelector;
    // Where the metric being evaluated is read from: its route's client, else the default one.
    metricsclient::MetricsClient* metrics = nullptr;
  };
  // The metrics that failed so far and the first one's condition (upstream reports the first).
  struct MetricFailures {
    int count = 0;
    std::optional<Error> first;
    api::HorizontalPodAutoscalerCondition firstCondition;
  };
  MetricsOutcome computeReplicasForMetrics(const api::Scale& scale);
  // `failureReason`: the reason of the Warning Event a failure emitted (none for some).
  Result<api::Selector> validateAndParseSelector(const std::string& selectorText,
                                                 std::string& failureReason);
  // Metric `index`: its proposal in the report, timed and counted; a failure the controls did
  // not replace with a proposal of their own goes to `failures`.
  void evaluateMetric(std::size_t index, const MetricInputs& in, MetricFailures& failures);
  // The largest proposal of the metrics that decided, and which metric made it (ties keep the
  // earlier metric); 0 when none did.
  std::int32_t largestProposal(std::string& metricName) const;
  // One metric's proposal, from the evaluator of its type.
  std::optional<Failure> computeReplicasForMetric(const api::MetricSpec& spec,
                                                  const MetricInputs& in,
                                                  report::MetricReport& report);
  // The evaluators, one per type of api::MetricSource (computeReplicasForMetric visits them: a
  // type without one does not compile).
  std::optional<Failure> evaluate(const api::ObjectMetricSource& source, const MetricInputs& in,
                                  report::MetricReport& report);
  std::optional<Failure> evaluate(const api::PodsMetricSource& source, const MetricInputs& in,
                                  report::MetricReport& report);
  std::optional<Failure> evaluate(const api::ResourceMetricSource& source, const MetricInputs& in,
                                  report::MetricReport& report);
  std::optional<Failure> evaluate(const api::ContainerResourceMetricSource& source,
                                  const MetricInputs& in, report::MetricReport& report);
  std::optional<Failure> evaluate(const api::ExternalMetricSource& source, const MetricInputs& in,
                                  report::MetricReport& report);
  std::optional<Failure> evaluate(const api::UnknownMetricSource& source, const MetricInputs& in,
                                  report::MetricReport& report);
  // Their parts.
  std::optional<Failure> evaluateObject(const api::ObjectMetricSource& source,
                                        const api::Selector& metricSelector, const MetricInputs& in,
                                        report::MetricReport& report);
  std::optional<Failure> evaluatePods(const api::PodsMetricSource& source,
                                      const api::Selector& metricSelector, const MetricInputs& in,
                                      report::MetricReport& report);
  std::optional<Failure> evaluateResource(const std::string& reason, const std::string& resource,
                                          const std::string& container, bool containerMetric,
                                          const api::MetricTarget& target, const MetricInputs& in,
                                          report::MetricReport& report);
  std::optional<Failure> evaluateExternal(const api::ExternalMetricSource& source,
                                          const MetricInputs& in, report::MetricReport& report);
  Result<std::vector<const api::Pod*>> listPods(const api::Selector& selector);
  // How old a per-pod metrics answer shared with other HPAs may be for this one.
  Duration metricsMaxAge() const;
  // What a per-pod Object/External target keeps within the tolerance: the release's rule, or
  // spec's where a control asks for it.
  replicacalc::WithinToleranceKeep withinToleranceKeep() const;
  // Upstream's getUnableComputeReplicaCountCondition: emits the metric's Warning event.
  api::HorizontalPodAutoscalerCondition unableToCompute(const std::string& reason,
                                                        const Error& error);

  std::vector<api::SharedPods> listedPods_;  // keeps listed pods alive
  // The last successful listPods: the selector check and the metric read the same pods, listed
  // once per reconcile.
  std::optional<api::Selector> lastListedSelector_;
  std::vector<const api::Pod*> lastListed_;

  // --- normalization, status, history (reconcile_status.cc)
  std::int32_t normalize(std::int32_t currentReplicas, std::int32_t proposed,
                         std::int32_t minReplicas, std::int32_t maxReplicas);
  void setStatus(std::int32_t currentReplicas, std::int32_t desiredReplicas,
                 std::vector<api::MetricStatus> statuses, bool rescaled);
  // The controls' part of the status first (controls::Control::beforeWrite), on every path.
  Status updateStatusIfNeeded();
  // Where the reconcile goes on after a failed status write, the failure is only logged.
  void updateStatusOrLog();
  // Keeps the history for the next reconcile (and the report).
  void storeHistory();
  void event(const std::string& type, const std::string& reason, const std::string& message);
  api::AutoscalerHistory& history();

  // --- what the controls see (controls::ReconcileView, reconcile_status.cc)
  const std::string& key() const override { return key_; }
  const api::HorizontalPodAutoscaler& hpa() const override { return hpa_; }
  const api::HorizontalPodAutoscalerCondition* conditionRead(
      const std::string& type) const override;
  api::HorizontalPodAutoscalerCondition* conditionNow(const std::string& type) override;
  Time now() const override { return now_; }
  bool keepsState() const override { return mode_ == ReconcileMode::Reconcile; }
  const controls::HpaControls& controls() const override { return report_.controls.controls; }
  controls::ControlsReport& controlsReport() override { return report_.controls; }
  const Logger& logger() const override { return s_.deps.logger; }
  void condition(const std::string& type, const std::string& status, const std::string& reason,
                 const std::string& message) override;
  void dropCondition(const std::string& type) override;
  Duration syncPeriod() const override {
    return controls().syncPeriod.value_or(s_.options.syncPeriod);
  }
  Duration initialReadinessDelay() const override {
    return setup_.initialReadinessDelay.value_or(s_.options.delayOfInitialReadinessStatus);
  }
  void normalEvent(const std::string& reason, const std::string& message) override;
  void warningEvent(const std::string& reason, const std::string& message) override;
  std::size_t metricCount() const override { return report_.metrics.size(); }
  const std::optional<std::string>& metricError(std::size_t index) const override {
    return report_.metrics[index].error;
  }
  const std::optional<controls::FallbackReport>& metricFallback(std::size_t index) const override {
    return report_.metrics[index].fallback;
  }

  // What this decision's writes amount to, from the controller's mode (ControllerMode), which a
  // reconcile reads here and nowhere else: the words of its log lines, and whether a rescale it
  // makes enters the history (not in shadow mode, where it was never made).
  struct Writes {
    const char* rescaled;
    const char* statusUpdated;
    bool recordsOwnRescales;
  };
  static Writes writesIn(ControllerMode mode);

  ReconcileServices& s_;
  const ReconcileMode mode_;
  const DecideOptions decide_;
  const Writes writes_;
  api::HorizontalPodAutoscaler hpa_;  // working copy; the cache is never mutated
  api::HorizontalPodAutoscalerStatus originalStatus_;
  std::string key_;
  Time now_;
  replicacalc::Tolerances tolerances_;
  controls::MetricsSetup setup_;  // as the controls set it before the metrics
  report::ReconcileReport report_;
  std::optional<api::AutoscalerHistory> history_;
  std::string action_ = kActionNone;
  GroupVersionResource targetResource_;
};

}  // namespace hpa::controller
