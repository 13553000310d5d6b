// A reconcile's writes to what outlives it: normalization over the history, the status (with the
// controls' part), the history itself; and what the controls see of the reconcile.

#include <fmt/format.h>

#include "controller/conditions.h"
#include "controller/reconcile.h"

namespace hpa::controller {

void Reconcile::event(const std::string& type, const std::string& reason,
                      const std::string& message) {
  s_.deps.events.event(hpa_, type, reason, message);
  report_.events.push_back({type, reason, message});
}

void Reconcile::condition(const std::string& type, const std::string& status,
                          const std::string& reason, const std::string& message) {
  setCondition(hpa_.status, type, status, reason, message, now_);
}

void Reconcile::dropCondition(const std::string& type) {
  controller::removeCondition(hpa_.status, type);
}

api::AutoscalerHistory& Reconcile::history() {
  if (!history_) {
    history_ = api::AutoscalerHistory{};
    history_->name = hpa_.metadata.name;
    history_->namespace_ = hpa_.metadata.namespace_;
  }
  return *history_;
}

void Reconcile::normalEvent(const std::string& reason, const std::string& message) {
  event(kEventNormal, reason, message);
}

void Reconcile::warningEvent(const std::string& reason, const std::string& message) {
  event(kEventWarning, reason, message);
}

const api::HorizontalPodAutoscalerCondition* Reconcile::conditionRead(
    const std::string& type) const {
  return api::findCondition(originalStatus_, type);
}

api::HorizontalPodAutoscalerCondition* Reconcile::conditionNow(const std::string& type) {
  return api::findCondition(hpa_.status, type);
}

void Reconcile::storeHistory() {
  report_.history = history_;
  if (keepsState()) s_.history.put(key_, *history_);
}

std::int32_t Reconcile::normalize(std::int32_t currentReplicas, std::int32_t proposed,
                                  std::int32_t minReplicas, std::int32_t maxReplicas) {
  replicacalc::NormalizationInput input{currentReplicas, proposed, minReplicas,
                                        maxReplicas,     now_,     s_.options.decisionRules};
  if (decide_.recommendations) history().recommendations = *decide_.recommendations;
  const replicacalc::NormalizationResult result = replicacalc::normalize(
      history(), hpa_.spec.behavior, input, s_.options.downscaleStabilizationWindow);
  condition(api::kAbleToScale, result.ableToScale.status, result.ableToScale.reason,
            result.ableToScale.message);
  condition(api::kScalingLimited, result.scalingLimited.status, result.scalingLimited.reason,
            result.scalingLimited.message);
  report_.normalization = result;
  return result.desired;
}

void Reconcile::setStatus(std::int32_t currentReplicas, std::int32_t desiredReplicas,
                          std::vector<api::MetricStatus> statuses, bool rescaled) {
  api::HorizontalPodAutoscalerStatus status;
  status.currentReplicas = currentReplicas;
  status.desiredReplicas = desiredReplicas;
  status.lastScaleTime = hpa_.status.lastScaleTime;
  status.currentMetrics = std::move(statuses);
  status.conditions = std::move(hpa_.status.conditions);
  if (s_.options.decisionRules.gates.hpaGeneration && s_.observedGenerationAccepted.load()) {
    status.observedGeneration = hpa_.metadata.generation;
  }
  if (rescaled) status.lastScaleTime = now_;
  hpa_.status = std::move(status);
}

void Reconcile::updateStatusOrLog() {
  if (auto written = updateStatusIfNeeded(); !written.ok()) {
    s_.deps.logger.error("status update failed", "HPA", key_, "err", written.error().message);
  }
}

Status Reconcile::updateStatusIfNeeded() {
  s_.controls.beforeWrite(*this);
  report_.status = hpa_.status;
  if (api::semanticallyEqual(originalStatus_, hpa_.status)) return Status();
  report_.statusChanged = true;
  auto stored = s_.deps.statusWriter.updateStatus(hpa_);
  if (!stored.ok()) {
    event(kEventWarning, api::kFailedUpdateStatus, stored.error().message);
    return stored.error().wrap(fmt::format("failed to update status for {}", hpa_.metadata.name));
  }
  report_.statusWritten = true;
  // A server whose HPA API predates status.observedGeneration drops it; writing it again would
  // make every sync look like a change.
  if (hpa_.status.observedGeneration && !stored->status.observedGeneration) {
    s_.observedGenerationAccepted.store(false);
  }
  s_.deps.logger.v(2, writes_.statusUpdated, "HPA", key_);
  return Status();
}

}  // namespace hpa::controller
