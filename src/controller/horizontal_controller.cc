// The controller's own part: the key a worker hands it, the lock per HPA, the stores that outlive
// a reconcile (history, selectors, controls), and the reconciles it runs (reconcile.h).

#include <fmt/format.h>

#include <algorithm>

#include "api/meta.h"
#include "common/quote.h"
#include "controller/reconcile.h"
#include "controller/scale_target.h"
#include "controller/spec_error.h"

namespace hpa::controller {

HorizontalController::HorizontalController(ControllerDependencies deps, ControllerOptions options)
    : deps_(std::move(deps)), options_(options), controls_(deps_.owners, deps_.forecastHistory) {
  if (!deps_.observer) deps_.observer = &noopObserver_;
}

ReconcileServices HorizontalController::services() {
  return ReconcileServices{deps_,      options_,  history_,
                           selectors_, controls_, observedGenerationAccepted_};
}

void HorizontalController::learnSelector(const api::HorizontalPodAutoscaler& hpa) {
  const std::string key = api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
  selectors_.registerHpa(key);
  auto found = findScaleTarget(deps_.scales, hpa.metadata.namespace_, hpa.spec.scaleTargetRef);
  const auto* target = std::get_if<ScaleTarget>(&found);
  if (!target || target->scale.selector.empty()) return;
  if (auto selector = api::Selector::parse(target->scale.selector); selector.ok())
    selectors_.update(key, *selector);
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
  auto [ns, name] = api::splitObjectKey(key);
  auto hpa = deps_.hpas.get(ns, name);
  if (!hpa.ok()) {
    result.status = hpa.error();
    result.report.error = hpa.error().message;
    return result;
  }
  if (!*hpa) {
    deps_.logger.info("Horizontal Pod Autoscaler has been deleted", "HPA", key);
    history_.erase(key);
    controls_.forget(key);
    result.deleted = true;
    result.report.branch = report::ReconcileBranch::Deleted;
    return result;
  }

  auto started = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> turn(keyLock(key));
  ReconcileServices services = this->services();
  Reconcile reconcile(services, **hpa, key, ReconcileMode::Reconcile);
  result.status = reconcile.run();
  result.report = std::move(reconcile.report());
  if (!result.status.ok()) result.report.error = result.status.error().message;
  // Spec errors are the ones upstream marks with its errSpec sentinel: an invalid apiVersion in
  // scaleTargetRef and an unknown metric type (the latter only ever surfaces wrapped as an
  // invalid-metrics error, which upstream's errors.Is still recognises).
  std::string errorLabel = kErrorNone;
  if (!result.status.ok())
    errorLabel = isSpecError(result.status.error()) ? kErrorSpec : kErrorInternal;
  deps_.observer->reconciliation(
      reconcile.action(), errorLabel,
      std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - started));
  return result;
}

ReconcileResult HorizontalController::decide(const api::HorizontalPodAutoscaler& hpa,
                                             const DecideOptions& options) {
  ReconcileResult result;
  const std::string key = api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
  std::lock_guard<std::mutex> turn(keyLock(key));
  ReconcileServices services = this->services();
  Reconcile reconcile(services, hpa, key, ReconcileMode::Decide, options);
  result.status = reconcile.run();
  result.report = std::move(reconcile.report());
  if (!result.status.ok()) result.report.error = result.status.error().message;
  return result;
}

void HorizontalController::recordObservedRescale(const api::HorizontalPodAutoscaler& hpa,
                                                 std::int32_t from, std::int32_t to, Time at) {
  if (!hpa.spec.behavior || from == to) return;
  const std::string key = api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
  std::lock_guard<std::mutex> turn(keyLock(key));
  auto history = history_.get(key);
  if (!history) return;  // not reconciled yet: its first reconcile starts the history
  replicacalc::recordScaleEvent(*hpa.spec.behavior, history->scaleUpEvents,
                                history->scaleDownEvents, from, to, at);
  history_.put(key, std::move(*history));
}

std::mutex& HorizontalController::keyLock(const std::string& key) {
  return keyLocks_[std::hash<std::string>{}(key) % keyLocks_.size()];
}

}  // namespace hpa::controller
