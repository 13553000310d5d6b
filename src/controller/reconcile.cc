#include "controller/reconcile.h"

#include <fmt/format.h>

#include "common/quote.h"
#include "controller/conditions.h"
#include "controller/last_decision.h"
#include "controller/scale_target.h"
#include "controller/spec_error.h"

namespace hpa::controller {
namespace {

// client-go retry.DefaultRetry, used for the scale update since v1.34: 5 attempts, 10 ms apart.
constexpr int kScaleUpdateAttempts = 5;
constexpr auto kScaleUpdateRetryDelay = std::chrono::milliseconds(10);
constexpr int kHttpConflict = 409;

bool hasObjectOrExternalMetrics(const api::HorizontalPodAutoscalerSpec& spec) {
  for (const auto& m : spec.metrics) {
    if (m.type == api::kObjectMetric || m.type == api::kExternalMetric) return true;
  }
  return false;
}

std::pair<std::string, std::string> splitKey(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

}  // namespace

const char* branchName(ReconcileBranch branch) {
  switch (branch) {
    case ReconcileBranch::Deleted: return "deleted";
    case ReconcileBranch::FailedGetScale: return "failed-get-scale";
    case ReconcileBranch::ScalingDisabled: return "scaling-disabled";
    case ReconcileBranch::AboveMaxReplicas: return "above-max-replicas";
    case ReconcileBranch::BelowMinReplicas: return "below-min-replicas";
    case ReconcileBranch::MetricsFailed: return "metrics-failed";
    case ReconcileBranch::Metrics: return "metrics";
  }
  return "unknown";
}

HorizontalController::HorizontalController(ControllerDependencies deps, ControllerOptions options)
    : deps_(std::move(deps)), options_(options) {
  if (!deps_.observer) deps_.observer = &noopObserver_;
}

void HorizontalController::learnSelector(const api::HorizontalPodAutoscaler& hpa) {
  const std::string key = api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
  selectors_.registerHpa(key);
  auto found = findScaleTarget(deps_.scales, hpa.metadata.namespace_, hpa.spec.scaleTargetRef);
  const auto* target = std::get_if<ScaleTarget>(&found);
  if (!target || target->scale.selector.empty()) return;
  if (auto selector = api::Selector::parse(target->scale.selector); selector.ok()) selectors_.update(key, *selector);
}

ReconcileResult HorizontalController::reconcileKey(const std::string& key) {
  ReconcileResult result;
  result.report.key = key;
  // cache.SplitMetaNamespaceKey: "name" or "namespace/name"; anything else is malformed and
  // dropped from the queue.
  if (std::count(key.begin(), key.end(), '/') > 1) {
    result.deleted = true;
    result.status = Error::format("unexpected key format: {}", quote(key));
    result.report.error = result.status.error().message;
    return result;
  }
  auto [ns, name] = splitKey(key);
  auto hpa = deps_.hpas.get(ns, name);
  if (!hpa.ok()) {
    result.status = hpa.error();
    result.report.error = hpa.error().message;
    return result;
  }
  if (!*hpa) {
    deps_.logger.info("Horizontal Pod Autoscaler has been deleted", "HPA", key);
    history_.erase(key);
    metricFailures_.erase(key);
    schedules_.erase(key);
    controlErrorsReported(key, "");
    result.deleted = true;
    result.report.branch = ReconcileBranch::Deleted;
    return result;
  }

  auto started = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> turn(keyLock(key));
  Reconcile reconcile(*this, **hpa, key);
  result.status = reconcile.run();
  result.report = std::move(reconcile.report());
  if (!result.status.ok()) result.report.error = result.status.error().message;
  // Spec errors are the ones upstream marks with its errSpec sentinel: an invalid apiVersion in
  // scaleTargetRef and an unknown metric type (the latter only ever surfaces wrapped as an
  // invalid-metrics error, which upstream's errors.Is still recognises).
  std::string errorLabel = kErrorNone;
  if (!result.status.ok()) errorLabel = isSpecError(result.status.error()) ? kErrorSpec : kErrorInternal;
  deps_.observer->reconciliation(reconcile.action(), errorLabel,
                                 std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - started));
  return result;
}

ReconcileResult HorizontalController::decide(const api::HorizontalPodAutoscaler& hpa, const DecideOptions& options) {
  ReconcileResult result;
  const std::string key = api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
  std::lock_guard<std::mutex> turn(keyLock(key));
  Reconcile reconcile(*this, hpa, key, &options);
  result.status = reconcile.run();
  result.report = std::move(reconcile.report());
  if (!result.status.ok()) result.report.error = result.status.error().message;
  return result;
}

void HorizontalController::recordObservedRescale(const api::HorizontalPodAutoscaler& hpa, std::int32_t from,
                                                 std::int32_t to, Time at) {
  if (!hpa.spec.behavior || from == to) return;
  const std::string key = api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
  std::lock_guard<std::mutex> turn(keyLock(key));
  auto history = history_.get(key);
  if (!history) return;  // not reconciled yet: its first reconcile starts the history
  replicacalc::recordScaleEvent(*hpa.spec.behavior, history->scaleUpEvents, history->scaleDownEvents, from, to, at);
  history_.put(key, std::move(*history));
}

std::mutex& HorizontalController::keyLock(const std::string& key) {
  return keyLocks_[std::hash<std::string>{}(key) % keyLocks_.size()];
}

HorizontalController::Reconcile::Reconcile(HorizontalController& controller, const api::HorizontalPodAutoscaler& hpa,
                                           std::string key, const DecideOptions* decide)
    : c_(controller),
      hpa_(hpa),
      originalStatus_(hpa.status),
      key_(std::move(key)),
      now_(controller.deps_.clock.now()),
      tolerances_(replicacalc::tolerancesFor(hpa.spec, controller.options_.tolerance, controller.options_.decisionRules)),
      controls_(parseControls(hpa, &controller.schedules_)) {
  report_.key = key_;
  report_.controls.controls = controls_;
  report_.controls.lastDecisionStored = hpa.metadata.annotations.contains(kLastDecisionAnnotation);
  report_.scaleTarget = fmt::format("{}/{}/{}", hpa_.spec.scaleTargetRef.kind, hpa_.metadata.namespace_,
                                    hpa_.spec.scaleTargetRef.name);
  report_.maxReplicas = hpa_.spec.maxReplicas;
  history_ = c_.history_.get(key_);
  decide_ = decide;
}

void HorizontalController::Reconcile::event(const std::string& type, const std::string& reason,
                                            const std::string& message) {
  c_.deps_.events.event(hpa_, type, reason, message);
  report_.events.push_back({type, reason, message});
}

void HorizontalController::Reconcile::condition(const std::string& type, const std::string& status,
                                                const std::string& reason, const std::string& message) {
  setCondition(hpa_.status, type, status, reason, message, now_);
}

api::AutoscalerHistory& HorizontalController::Reconcile::history() {
  if (!history_) {
    history_ = api::AutoscalerHistory{};
    history_->name = hpa_.metadata.name;
    history_->namespace_ = hpa_.metadata.namespace_;
  }
  return *history_;
}

Status HorizontalController::Reconcile::failedGetScale(const Error& conditionError, const Error& returned) {
  report_.branch = ReconcileBranch::FailedGetScale;
  event(kEventWarning, "FailedGetScale", conditionError.message);
  condition(api::kAbleToScale, api::kConditionFalse, "FailedGetScale",
            fmt::format("the HPA controller was unable to get the target's current scale: {}", conditionError.message));
  report_.status = hpa_.status;
  updateStatusOrLog();
  return returned;
}

Result<api::Scale> HorizontalController::Reconcile::resolveScale() {
  auto found = findScaleTarget(c_.deps_.scales, hpa_.metadata.namespace_, hpa_.spec.scaleTargetRef);
  if (auto* target = std::get_if<ScaleTarget>(&found)) {
    targetResource_ = target->resource;
    return std::move(target->scale);
  }
  const Error& err = std::get<ScaleTargetError>(found).error;
  switch (std::get<ScaleTargetError>(found).step) {
    case ScaleTargetError::Step::ApiVersion:
      return failedGetScale(err, specError(err.wrap("invalid API version in scale target reference")))
          .error();
    case ScaleTargetError::Step::Mapping:
      return failedGetScale(err, err.wrap("unable to determine resource for scale target reference"))
          .error();
    case ScaleTargetError::Step::Get:
      break;
  }
  return failedGetScale(err, err.wrap(fmt::format("failed to query scale subresource for {}", report_.scaleTarget)))
      .error();
}

Status HorizontalController::Reconcile::run() {
  auto scale = readScale();
  if (!scale.ok()) return scale.error();
  Decision decision = decideWithinBounds(*scale);
  if (decision.computeMetrics) {
    if (auto failed = decideFromMetrics(*scale, decision)) return *failed;
  }
  holdIfPaused(decision);
  if (decision.rescale) {
    if (auto rescaled = rescaleTarget(*scale, decision); !rescaled.ok()) return rescaled;
  } else {
    keepScale(decision);
  }
  return writeStatus(decision);
}

Result<api::Scale> HorizontalController::Reconcile::readScale() {
  auto scale = resolveScale();
  if (!scale.ok()) return scale;
  if (decide_ && decide_->currentReplicas) scale->specReplicas = *decide_->currentReplicas;
  report_.scale = *scale;
  condition(api::kAbleToScale, api::kConditionTrue, "SucceededGetScale",
            "the HPA controller was able to get the target's current scale");
  report_.currentReplicas = scale->specReplicas;
  // recordInitialRecommendation: an HPA seen for the first time starts from its current size,
  // so no scale-down happens during the first stabilization window.
  if (!history_) history().recommendations.push_back({scale->specReplicas, now_});
  return scale;
}

HorizontalController::Reconcile::Decision HorizontalController::Reconcile::decideWithinBounds(
    const api::Scale& scale) {
  Decision d;
  d.currentReplicas = scale.specReplicas;
  d.minReplicas = hpa_.spec.minReplicas.value_or(1);
  d.maxReplicas = hpa_.spec.maxReplicas;
  applySchedule(d);
  report_.minReplicas = d.minReplicas;
  report_.maxReplicas = d.maxReplicas;
  const bool scaleToZero = c_.options_.scaleToZero;
  d.hasObjectOrExternalMetrics = hasObjectOrExternalMetrics(hpa_.spec);
  const auto* zeroCondition = findCondition(hpa_.status, api::kScaledToZero);
  d.scaledToZero = scaleToZero && zeroCondition && zeroCondition->status == api::kConditionTrue;
  const bool canScaleFromZero = d.scaledToZero && d.hasObjectOrExternalMetrics;

  if (d.currentReplicas == 0) {
    d.computeMetrics = (d.minReplicas != 0 && d.scaledToZero) || canScaleFromZero;
    if (!d.computeMetrics) {
      report_.branch = ReconcileBranch::ScalingDisabled;
      d.desiredReplicas = 0;
      d.rescale = false;
      condition(api::kScalingActive, api::kConditionFalse, "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero");
      if (!scaleToZero) removeCondition(hpa_.status, api::kScaledToZero);
    }
  } else if (d.currentReplicas > d.maxReplicas) {
    report_.branch = ReconcileBranch::AboveMaxReplicas;
    d.reason = "Current number of replicas above Spec.MaxReplicas";
    d.desiredReplicas = d.maxReplicas;
    d.computeMetrics = false;
    holdToScheduleBound(d, /*aboveMax=*/true);
  } else if (d.currentReplicas < d.minReplicas) {
    report_.branch = ReconcileBranch::BelowMinReplicas;
    d.reason = "Current number of replicas below Spec.MinReplicas";
    d.desiredReplicas = d.minReplicas;
    d.computeMetrics = false;
    holdToScheduleBound(d, /*aboveMax=*/false);
  }
  return d;
}

std::optional<Error> HorizontalController::Reconcile::decideFromMetrics(const api::Scale& scale, Decision& d) {
  auto outcome = computeReplicasForMetrics(scale);
  d.metricStatuses = outcome.statuses;
  if (outcome.error && outcome.replicas == -1) return failedComputeMetrics(*outcome.error, d);
  report_.branch = ReconcileBranch::Metrics;
  if (outcome.error) d.metricsError = outcome.error;  // some metrics failed but scaling may proceed
  report_.metricReplicas = outcome.replicas;
  report_.metricName = outcome.metricName;
  c_.deps_.logger.v(4, d.currentReplicas == 0 ? "Proposing desired replicas from zero" : "Proposing desired replicas",
                    "desiredReplicas", outcome.replicas, "metric", outcome.metricName, "scaleTarget",
                    report_.scaleTarget);

  std::string rescaleMetric;
  if (outcome.replicas > d.desiredReplicas) {
    d.desiredReplicas = outcome.replicas;
    rescaleMetric = outcome.metricName;
  }
  if (d.desiredReplicas > d.currentReplicas) d.reason = fmt::format("{} above target", rescaleMetric);
  if (d.desiredReplicas < d.currentReplicas) d.reason = "All metrics below target";
  auto scheduleLimit = holdProposalInWindow(d);
  d.desiredReplicas = normalize(d.currentReplicas, d.desiredReplicas, d.minReplicas, d.maxReplicas);
  if (scheduleLimit) settleScheduleLimit(d, *scheduleLimit);
  // Scaling from zero after minReplicas was raised: at least minReplicas.
  if (d.currentReplicas == 0 && d.minReplicas != 0 && d.scaledToZero && d.desiredReplicas < d.minReplicas) {
    d.desiredReplicas = d.minReplicas;
    if (d.reason.empty()) d.reason = "Current number of replicas below Spec.MinReplicas";
  }
  d.rescale = d.desiredReplicas != d.currentReplicas;
  return std::nullopt;
}

Error HorizontalController::Reconcile::failedComputeMetrics(const Error& error, const Decision& d) {
  report_.branch = ReconcileBranch::MetricsFailed;
  setStatus(d.currentReplicas, hpa_.status.desiredReplicas, d.metricStatuses, false);
  report_.desiredReplicas = hpa_.status.desiredReplicas;
  updateStatusOrLog();
  event(kEventWarning, "FailedComputeMetricsReplicas", error.message);
  storeHistory();
  return error.wrap(fmt::format("failed to compute desired number of replicas based on listed metrics for {}", report_.scaleTarget));
}

void HorizontalController::Reconcile::holdIfPaused(Decision& d) {
  // Paused: everything is computed and recorded as usual, only the scale is left alone.
  d.pauseSuppressedRescale = d.rescale && controls_.paused;
  if (d.pauseSuppressedRescale) {
    report_.controls.pausedScaleTo = d.desiredReplicas;
    d.rescale = false;
    c_.deps_.logger.v(2, "Paused: not updating the scale", "HPA", key_, "currentReplicas", d.currentReplicas,
                      "desiredReplicas", d.desiredReplicas, "reason", d.reason);
  }
  report_.reason = d.reason;
  report_.rescale = d.rescale;
}

Status HorizontalController::Reconcile::rescaleTarget(const api::Scale& scale, const Decision& d) {
  if (auto updated = updateScaleWithRetry(scale, d.desiredReplicas); !updated.ok()) {
    return failedRescale(updated.error(), d);
  }
  succeededRescale(d);
  return Status();
}

Status HorizontalController::Reconcile::updateScaleWithRetry(api::Scale update, std::int32_t desiredReplicas) {
  Status updated;
  for (int attempt = 1; attempt <= kScaleUpdateAttempts; ++attempt) {
    update.specReplicas = desiredReplicas;
    auto put = c_.deps_.scales.updateScale(hpa_.metadata.namespace_, targetResource_, update);
    if (put.ok()) return Status();
    updated = put.error();
    // Refresh the resourceVersion for the next attempt; a failed refresh keeps the old one.
    auto latest = c_.deps_.scales.getScale(hpa_.metadata.namespace_, targetResource_, hpa_.spec.scaleTargetRef.name);
    if (latest.ok()) {
      update = *latest;
    } else {
      c_.deps_.logger.error("error getting latest scale during conflict retry", "scaleTarget", report_.scaleTarget,
                            "err", latest.error().message);
    }
    if (put.error().httpCode != kHttpConflict || attempt == kScaleUpdateAttempts) break;
    c_.deps_.clock.sleepFor(kScaleUpdateRetryDelay);
  }
  return updated;
}

Error HorizontalController::Reconcile::failedRescale(const Error& err, const Decision& d) {
  event(kEventWarning, "FailedRescale",
        fmt::format("New size: {}; reason: {}; error: {}", d.desiredReplicas, d.reason, err.message));
  condition(api::kAbleToScale, api::kConditionFalse, "FailedUpdateScale",
            fmt::format("the HPA controller was unable to update the target scale: {}", err.message));
  setStatus(d.currentReplicas, hpa_.status.desiredReplicas, d.metricStatuses, false);
  report_.desiredReplicas = hpa_.status.desiredReplicas;
  updateStatusOrLog();
  storeHistory();
  return err.wrap(fmt::format("failed to rescale {}", report_.scaleTarget));
}

void HorizontalController::Reconcile::succeededRescale(const Decision& d) {
  report_.rescaled = true;
  condition(api::kAbleToScale, api::kConditionTrue, "SucceededRescale",
            fmt::format("the HPA controller was able to update the target scale to {}", d.desiredReplicas));
  event(kEventNormal, "SuccessfulRescale", fmt::format("New size: {}; reason: {}", d.desiredReplicas, d.reason));
  if (hpa_.spec.behavior && !c_.options_.dryRun) {
    auto& h = history();
    replicacalc::recordScaleEvent(*hpa_.spec.behavior, h.scaleUpEvents, h.scaleDownEvents, d.currentReplicas,
                                  d.desiredReplicas, now_);
  }
  c_.deps_.logger.v(2, c_.options_.dryRun ? "Would rescale (dry run)" : "Successfully rescaled", "HPA", key_, "currentReplicas", d.currentReplicas, "desiredReplicas",
                    d.desiredReplicas, "reason", d.reason);
  if (c_.options_.scaleToZero) {
    if (d.currentReplicas > 0 && d.desiredReplicas == 0 && d.minReplicas == 0 && d.hasObjectOrExternalMetrics) {
      condition(api::kScaledToZero, api::kConditionTrue, "ScaledToZero", "the HPA controller scaled the workload to zero");
    } else {
      condition(api::kScaledToZero, api::kConditionFalse, "NotScaledToZero",
                "the HPA controller did not scale the workload to zero");
    }
  } else {
    removeCondition(hpa_.status, api::kScaledToZero);
  }
  action_ = d.desiredReplicas > d.currentReplicas ? kActionScaleUp : kActionScaleDown;
}

void HorizontalController::Reconcile::keepScale(Decision& d) {
  c_.deps_.logger.v(4, "Decided not to scale", "scaleTarget", report_.scaleTarget, "desiredReplicas", d.desiredReplicas,
                    "lastScaleTime", hpa_.status.lastScaleTime ? formatRFC3339(*hpa_.status.lastScaleTime) : std::string());
  // A paused HPA's status shows the count it would choose.
  if (!d.pauseSuppressedRescale) d.desiredReplicas = d.currentReplicas;
}

Status HorizontalController::Reconcile::writeStatus(Decision& d) {
  setStatus(d.currentReplicas, d.desiredReplicas, std::move(d.metricStatuses), report_.rescaled);
  report_.desiredReplicas = d.desiredReplicas;
  c_.deps_.observer->desiredReplicas(hpa_.metadata.namespace_, hpa_.metadata.name, d.desiredReplicas);
  storeHistory();
  if (auto written = updateStatusIfNeeded(); !written.ok()) return written;
  if (d.metricsError) return *d.metricsError;
  return Status();
}

void HorizontalController::Reconcile::storeHistory() {
  report_.history = history_;
  if (!decide_) c_.history_.put(key_, *history_);
}

std::int32_t HorizontalController::Reconcile::normalize(std::int32_t currentReplicas, std::int32_t proposed,
                                                       std::int32_t minReplicas, std::int32_t maxReplicas) {
  replicacalc::NormalizationInput input{currentReplicas, proposed, minReplicas, maxReplicas, now_,
                                        c_.options_.decisionRules};
  auto& h = history();
  replicacalc::NormalizationResult result =
      hpa_.spec.behavior
          ? replicacalc::normalizeWithBehavior(h.recommendations, h.scaleUpEvents, h.scaleDownEvents,
                                               *hpa_.spec.behavior, input, c_.options_.downscaleStabilizationWindow)
          : replicacalc::normalizeWithoutBehavior(h.recommendations, input, c_.options_.downscaleStabilizationWindow);
  condition(api::kAbleToScale, result.ableToScale.status, result.ableToScale.reason, result.ableToScale.message);
  condition(api::kScalingLimited, result.scalingLimited.status, result.scalingLimited.reason,
            result.scalingLimited.message);
  report_.normalization = result;
  return result.desired;
}

void HorizontalController::Reconcile::setStatus(std::int32_t currentReplicas, std::int32_t desiredReplicas,
                                                std::vector<api::MetricStatus> statuses, bool rescaled) {
  api::HorizontalPodAutoscalerStatus status;
  status.currentReplicas = currentReplicas;
  status.desiredReplicas = desiredReplicas;
  status.lastScaleTime = hpa_.status.lastScaleTime;
  status.currentMetrics = std::move(statuses);
  status.conditions = std::move(hpa_.status.conditions);
  if (c_.options_.writeObservedGeneration && c_.observedGenerationAccepted_.load()) {
    status.observedGeneration = hpa_.metadata.generation;
  }
  if (rescaled) status.lastScaleTime = now_;
  hpa_.status = std::move(status);
}

void HorizontalController::Reconcile::updateStatusOrLog() {
  if (auto written = updateStatusIfNeeded(); !written.ok()) {
    c_.deps_.logger.error("status update failed", "HPA", key_, "err", written.error().message);
  }
}

Status HorizontalController::Reconcile::updateStatusIfNeeded() {
  applyControlsToStatus();
  report_.status = hpa_.status;
  if (api::semanticallyEqual(originalStatus_, hpa_.status)) return Status();
  report_.statusChanged = true;
  auto stored = c_.deps_.statusWriter.updateStatus(hpa_);
  if (!stored.ok()) {
    event(kEventWarning, "FailedUpdateStatus", stored.error().message);
    return stored.error().wrap(fmt::format("failed to update status for {}", hpa_.metadata.name));
  }
  report_.statusWritten = true;
  // A server whose HPA API predates status.observedGeneration drops it; writing it again would
  // make every sync look like a change.
  if (hpa_.status.observedGeneration && !stored->status.observedGeneration) {
    c_.observedGenerationAccepted_.store(false);
  }
  c_.deps_.logger.v(2, c_.options_.dryRun ? "Would update status (dry run)" : "Successfully updated status", "HPA",
                    key_);
  return Status();
}

}  // namespace hpa::controller
