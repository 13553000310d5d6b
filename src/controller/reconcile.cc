// The phases of one reconcile (upstream's reconcileAutoscaler): the target's scale, the
// decision within the bounds or from the metrics, the rescale, the status.

#include "controller/reconcile.h"

#include <fmt/format.h>

#include <algorithm>

#include "controller/conditions.h"
#include "controller/rules_notes.h"
#include "controller/scale_target.h"
#include "controller/spec_error.h"

namespace hpa::controller {
namespace {

// client-go retry.DefaultRetry, used for the scale update since v1.34: 5 attempts, 10 ms apart.
constexpr int kScaleUpdateAttempts = 5;
constexpr auto kScaleUpdateRetryDelay = std::chrono::milliseconds(10);
constexpr int kHttpConflict = 409;
constexpr int kHttpNotFound = 404;

bool hasObjectOrExternalMetrics(const api::HorizontalPodAutoscalerSpec& spec) {
  return std::any_of(spec.metrics.begin(), spec.metrics.end(), api::isWorkloadWide);
}

}  // namespace

Reconcile::Reconcile(ReconcileServices& services, const api::HorizontalPodAutoscaler& hpa,
                     std::string key, ReconcileMode mode, const DecideOptions& decide)
    : s_(services),
      mode_(mode),
      decide_(mode == ReconcileMode::Decide ? decide : DecideOptions{}),
      writes_(writesIn(services.options.mode)),
      hpa_(hpa),
      originalStatus_(hpa.status),
      key_(std::move(key)),
      now_(services.deps.clock.now()),
      tolerances_(replicacalc::tolerancesFor(hpa.spec, services.options.tolerance,
                                             services.options.decisionRules)) {
  report_.key = key_;
  report_.rulesNotes = rulesNotes(hpa.spec, services.options.decisionRules);
  report_.controls = s_.controls.start(hpa);
  report_.scaleTarget = fmt::format("{}/{}/{}", hpa_.spec.scaleTargetRef.kind,
                                    hpa_.metadata.namespace_, hpa_.spec.scaleTargetRef.name);
  report_.maxReplicas = hpa_.spec.maxReplicas;
  history_ = s_.history.get(key_);
}

Reconcile::Writes Reconcile::writesIn(ControllerMode mode) {
  if (mode == ControllerMode::Shadow)
    return {"Would rescale (dry run)", "Would update status (dry run)", false};
  return {"Successfully rescaled", "Successfully updated status", true};
}

Result<api::Scale> Reconcile::resolveScale() {
  auto found = findScaleTarget(s_.deps.scales, hpa_.metadata.namespace_, hpa_.spec.scaleTargetRef);
  if (auto* target = std::get_if<ScaleTarget>(&found)) {
    targetResource_ = target->resource;
    return std::move(target->scale);
  }
  const auto failure = Failure::of(api::kFailedGetScale, std::get<ScaleTargetError>(found).error);
  switch (std::get<ScaleTargetError>(found).step) {
    case ScaleTargetError::Step::ApiVersion: {
      Failure wrapped = failure.wrap("invalid API version in scale target reference");
      wrapped.returned = specError(wrapped.returned);
      return failedGetScale(wrapped);
    }
    case ScaleTargetError::Step::Mapping:
      return failedGetScale(
          failure.wrap("unable to determine resource for scale target reference"));
    case ScaleTargetError::Step::Get:
      report_.targetNotFound = failure.shown.httpCode == kHttpNotFound;
      break;
  }
  return failedGetScale(
      failure.wrap(fmt::format("failed to query scale subresource for {}", report_.scaleTarget)));
}

Error Reconcile::failedGetScale(const Failure& failure) {
  report_.branch = report::ReconcileBranch::FailedGetScale;
  report_.failureReason = failure.reason;
  event(kEventWarning, failure.reason, failure.shown.message);
  condition(api::kAbleToScale, api::kConditionFalse, failure.reason,
            fmt::format("the HPA controller was unable to get the target's current scale: {}",
                        failure.shown.message));
  report_.status = hpa_.status;
  updateStatusOrLog();
  return failure.returned;
}

Status Reconcile::run() {
  auto scale = readScale();
  if (!scale.ok()) return scale.error();
  Decision decision = decideWithinBounds(*scale);
  if (decision.computeMetrics) {
    if (auto decided = decideFromMetrics(*scale, decision); !decided.ok()) return decided;
  }
  beforeRescale(decision);
  if (decision.rescale) {
    if (auto rescaled = rescaleTarget(*scale, decision); !rescaled.ok()) return rescaled;
  } else {
    keepScale(decision);
  }
  return writeStatus(decision);
}

Result<api::Scale> Reconcile::readScale() {
  auto scale = resolveScale();
  if (!scale.ok()) return scale;
  if (decide_.currentReplicas) scale->specReplicas = *decide_.currentReplicas;
  report_.scale = *scale;
  condition(api::kAbleToScale, api::kConditionTrue, api::kSucceededGetScale,
            "the HPA controller was able to get the target's current scale");
  report_.currentReplicas = scale->specReplicas;
  // recordInitialRecommendation: an HPA seen for the first time starts from its current size,
  // so no scale-down happens during the first stabilization window.
  if (!history_) history().recommendations.push_back({scale->specReplicas, now_});
  return scale;
}

Reconcile::Decision Reconcile::decideWithinBounds(const api::Scale& scale) {
  Decision d;
  d.currentReplicas = scale.specReplicas;
  setup_.minReplicas = hpa_.spec.minReplicas.value_or(1);
  setup_.maxReplicas = hpa_.spec.maxReplicas;
  setup_.metricsMaxAge = s_.options.syncPeriod / 2;
  s_.controls.beforeMetrics(*this, setup_);
  d.minReplicas = setup_.minReplicas;
  d.maxReplicas = setup_.maxReplicas;
  report_.minReplicas = d.minReplicas;
  report_.maxReplicas = d.maxReplicas;
  const auto& rules = s_.options.decisionRules;
  const bool scaleToZero = rules.gates.hpaScaleToZero;
  d.hasObjectOrExternalMetrics = hasObjectOrExternalMetrics(hpa_.spec);
  const auto* zeroCondition = api::findCondition(hpa_.status, api::kScaledToZero);
  d.scaledToZero = rules.scaledToZeroCondition && scaleToZero && zeroCondition &&
                   zeroCondition->status == api::kConditionTrue;
  const bool canScaleFromZero = d.scaledToZero && d.hasObjectOrExternalMetrics;

  if (d.currentReplicas == 0) {
    // Before 1.36 a target at zero was left alone unless minReplicas was 0 (which only the gate
    // lets the API server accept); since, only one this HPA scaled to zero is scaled from it.
    d.computeMetrics = rules.scaledToZeroCondition
                           ? (d.minReplicas != 0 && d.scaledToZero) || canScaleFromZero
                           : d.minReplicas == 0;
    if (!d.computeMetrics) {
      report_.branch = report::ReconcileBranch::ScalingDisabled;
      d.desiredReplicas = 0;
      d.rescale = false;
      condition(api::kScalingActive, api::kConditionFalse, api::kScalingDisabled,
                "scaling is disabled since the replica count of the target is zero");
      if (rules.scaledToZeroCondition && !scaleToZero)
        removeCondition(hpa_.status, api::kScaledToZero);
    }
  } else if (d.currentReplicas > d.maxReplicas) {
    report_.branch = report::ReconcileBranch::AboveMaxReplicas;
    d.reason = "Current number of replicas above Spec.MaxReplicas";
    d.desiredReplicas = d.maxReplicas;
    d.computeMetrics = false;
    d.aboveMax = true;
    s_.controls.afterProposal(*this, controls::Proposal::Stage::OutsideBounds, d);
  } else if (d.currentReplicas < d.minReplicas) {
    report_.branch = report::ReconcileBranch::BelowMinReplicas;
    d.reason = "Current number of replicas below Spec.MinReplicas";
    d.desiredReplicas = d.minReplicas;
    d.computeMetrics = false;
    s_.controls.afterProposal(*this, controls::Proposal::Stage::OutsideBounds, d);
  }
  return d;
}

Status Reconcile::decideFromMetrics(const api::Scale& scale, Decision& d) {
  auto outcome = computeReplicasForMetrics(scale);
  d.metricStatuses = outcome.statuses;
  if (outcome.error && outcome.replicas == -1)
    return failedComputeMetrics(*outcome.error, outcome.errorReason, d);
  report_.branch = report::ReconcileBranch::Metrics;
  if (outcome.error) {  // some metrics failed but scaling may proceed
    d.metricsError = outcome.error;
    d.metricsErrorReason = outcome.errorReason;
  }
  report_.metricReplicas = outcome.replicas;
  report_.metricName = outcome.metricName;
  s_.deps.logger.v(4,
                   d.currentReplicas == 0 ? "Proposing desired replicas from zero"
                                          : "Proposing desired replicas",
                   "desiredReplicas", outcome.replicas, "metric", outcome.metricName, "scaleTarget",
                   report_.scaleTarget);

  std::string rescaleMetric;
  if (outcome.replicas > d.desiredReplicas) {
    d.desiredReplicas = outcome.replicas;
    rescaleMetric = outcome.metricName;
  }
  if (d.desiredReplicas > d.currentReplicas)
    d.reason = fmt::format("{} above target", rescaleMetric);
  if (d.desiredReplicas < d.currentReplicas) d.reason = "All metrics below target";
  s_.controls.afterProposal(*this, controls::Proposal::Stage::FromMetrics, d);
  d.desiredReplicas = normalize(d.currentReplicas, d.desiredReplicas, d.minReplicas, d.maxReplicas);
  s_.controls.afterProposal(*this, controls::Proposal::Stage::Normalized, d);
  // Scaling from zero after minReplicas was raised: at least minReplicas.
  if (d.currentReplicas == 0 && d.minReplicas != 0 && d.scaledToZero &&
      d.desiredReplicas < d.minReplicas) {
    d.desiredReplicas = d.minReplicas;
    if (d.reason.empty()) d.reason = "Current number of replicas below Spec.MinReplicas";
  }
  d.rescale = d.desiredReplicas != d.currentReplicas;
  return Status();
}

Error Reconcile::failedComputeMetrics(const Error& error, const std::string& reason,
                                      const Decision& d) {
  report_.branch = report::ReconcileBranch::MetricsFailed;
  report_.failureReason = reason.empty() ? api::kFailedComputeMetricsReplicas : reason;
  setStatus(d.currentReplicas, hpa_.status.desiredReplicas, d.metricStatuses, false);
  report_.desiredReplicas = hpa_.status.desiredReplicas;
  updateStatusOrLog();
  event(kEventWarning, api::kFailedComputeMetricsReplicas, error.message);
  storeHistory();
  return error.wrap(
      fmt::format("failed to compute desired number of replicas based on listed metrics for {}",
                  report_.scaleTarget));
}

void Reconcile::beforeRescale(Decision& d) {
  s_.controls.afterProposal(*this, controls::Proposal::Stage::BeforeRescale, d);
  report_.reason = d.reason;
  report_.rescale = d.rescale;
}

Status Reconcile::rescaleTarget(const api::Scale& scale, const Decision& d) {
  if (auto updated = updateScaleWithRetry(scale, d.desiredReplicas); !updated.ok()) {
    return failedRescale(updated.error(), d);
  }
  succeededRescale(d);
  return Status();
}

Status Reconcile::updateScaleWithRetry(api::Scale update, std::int32_t desiredReplicas) {
  Status updated;
  for (int attempt = 1; attempt <= kScaleUpdateAttempts; ++attempt) {
    update.specReplicas = desiredReplicas;
    auto put = s_.deps.scales.updateScale(hpa_.metadata.namespace_, targetResource_, update);
    if (put.ok()) return Status();
    updated = put.error();
    // Refresh the resourceVersion for the next attempt; a failed refresh keeps the old one.
    auto latest = s_.deps.scales.getScale(hpa_.metadata.namespace_, targetResource_,
                                          hpa_.spec.scaleTargetRef.name);
    if (latest.ok()) {
      update = *latest;
    } else {
      s_.deps.logger.error("error getting latest scale during conflict retry", "scaleTarget",
                           report_.scaleTarget, "err", latest.error().message);
    }
    if (put.error().httpCode != kHttpConflict || attempt == kScaleUpdateAttempts) break;
    s_.deps.clock.sleepFor(kScaleUpdateRetryDelay);
  }
  return updated;
}

Error Reconcile::failedRescale(const Error& err, const Decision& d) {
  report_.failureReason = api::kFailedRescale;
  event(
      kEventWarning, api::kFailedRescale,
      fmt::format("New size: {}; reason: {}; error: {}", d.desiredReplicas, d.reason, err.message));
  condition(
      api::kAbleToScale, api::kConditionFalse, api::kFailedUpdateScale,
      fmt::format("the HPA controller was unable to update the target scale: {}", err.message));
  setStatus(d.currentReplicas, hpa_.status.desiredReplicas, d.metricStatuses, false);
  report_.desiredReplicas = hpa_.status.desiredReplicas;
  updateStatusOrLog();
  storeHistory();
  return err.wrap(fmt::format("failed to rescale {}", report_.scaleTarget));
}

void Reconcile::succeededRescale(const Decision& d) {
  report_.rescaled = true;
  condition(api::kAbleToScale, api::kConditionTrue, api::kSucceededRescale,
            fmt::format("the HPA controller was able to update the target scale to {}",
                        d.desiredReplicas));
  event(kEventNormal, api::kSuccessfulRescale,
        fmt::format("New size: {}; reason: {}", d.desiredReplicas, d.reason));
  if (hpa_.spec.behavior && writes_.recordsOwnRescales) {
    auto& h = history();
    replicacalc::recordScaleEvent(*hpa_.spec.behavior, h.scaleUpEvents, h.scaleDownEvents,
                                  d.currentReplicas, d.desiredReplicas, now_);
  }
  s_.deps.logger.v(2, writes_.rescaled, "HPA", key_, "currentReplicas", d.currentReplicas,
                   "desiredReplicas", d.desiredReplicas, "reason", d.reason);
  const auto& rules = s_.options.decisionRules;
  if (!rules.scaledToZeroCondition) {
    // Releases before 1.36 do not know the condition.
  } else if (rules.gates.hpaScaleToZero) {
    if (d.currentReplicas > 0 && d.desiredReplicas == 0 && d.minReplicas == 0 &&
        d.hasObjectOrExternalMetrics) {
      condition(api::kScaledToZero, api::kConditionTrue, api::kScaledToZeroReason,
                "the HPA controller scaled the workload to zero");
    } else {
      condition(api::kScaledToZero, api::kConditionFalse, api::kNotScaledToZero,
                "the HPA controller did not scale the workload to zero");
    }
  } else {
    removeCondition(hpa_.status, api::kScaledToZero);
  }
  action_ = d.desiredReplicas > d.currentReplicas ? kActionScaleUp : kActionScaleDown;
}

void Reconcile::keepScale(Decision& d) {
  s_.deps.logger.v(
      4, "Decided not to scale", "scaleTarget", report_.scaleTarget, "desiredReplicas",
      d.desiredReplicas, "lastScaleTime",
      hpa_.status.lastScaleTime ? formatRFC3339(*hpa_.status.lastScaleTime) : std::string());
  // A control that held the rescale (a pause) leaves the count it would choose in the status.
  if (!d.rescaleHeld) d.desiredReplicas = d.currentReplicas;
}

Status Reconcile::writeStatus(Decision& d) {
  setStatus(d.currentReplicas, d.desiredReplicas, std::move(d.metricStatuses), report_.rescaled);
  report_.desiredReplicas = d.desiredReplicas;
  s_.deps.observer->desiredReplicas(hpa_.metadata.namespace_, hpa_.metadata.name,
                                    d.desiredReplicas);
  storeHistory();
  if (auto written = updateStatusIfNeeded(); !written.ok()) {
    report_.failureReason = api::kFailedUpdateStatus;
    return written;
  }
  if (d.metricsError) {
    report_.failureReason = d.metricsErrorReason;
    return *d.metricsError;
  }
  return Status();
}

}  // namespace hpa::controller
