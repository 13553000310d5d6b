#include "explain/explainer.h"

#include "controls/last_decision.h"

namespace hpa::explain {
namespace {

controller::ControllerOptions withPodAccounts(controller::ControllerOptions options) {
  options.explainPods = true;
  return options;
}

std::string keyOf(const api::HorizontalPodAutoscaler& hpa) {
  return api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
}

}  // namespace

Explainer::Explainer(controller::HpaLister& hpas, controller::PodLister& pods,
                     metricsclient::MetricsClient& metrics, controller::ScaleClient& scaleReads,
                     const ExplainOptions& options, const controls::OwnerLookup* owners,
                     metricsclient::MetricRoutes* routes)
    : now_(options.now),
      scales_(scaleReads),
      clock_(options.now),
      sameClient_(routes ? nullptr : std::make_unique<metricsclient::SameClientRoutes>(metrics)),
      forecastHistory_(options.forecastHistory
                           ? std::make_unique<RecordedHistory>(options.forecastHistory)
                           : nullptr),
      controller_(
          controller::ControllerDependencies{
              hpas, pods, metrics, scales_, statusWriter_, events_, clock_, Logger::discard(),
              nullptr, owners, routes ? routes : sameClient_.get(),
              options.forecastSource ? options.forecastSource : forecastHistory_.get()},
          withPodAccounts(options.controller)) {}

void Explainer::giveHistory(const api::HorizontalPodAutoscaler& hpa,
                            api::AutoscalerHistory history) {
  history.name = hpa.metadata.name;
  history.namespace_ = hpa.metadata.namespace_;
  controller_.history().put(keyOf(hpa), std::move(history));
  historyGiven_[keyOf(hpa)] = true;
}

Explanation Explainer::explain(const api::HorizontalPodAutoscaler& hpa) {
  const std::string key = keyOf(hpa);
  controller_.hpaAdded(key);
  auto result = controller_.reconcileKey(key);
  Explanation out;
  out.hpaKey = key;
  out.now = now_;
  out.historyGiven = historyGiven_.contains(key);
  out.rules = controller_.options().decisionRules;
  out.report = std::move(result.report);
  out.metricSpecs = hpa.spec.metrics;
  // A reconcile whose target's Scale could not be read stops before it applies the bounds; the
  // HPA's own are what a reader expects to see then (minReplicas as the API server defaults it).
  if (out.report.branch == report::ReconcileBranch::FailedGetScale) {
    out.report.minReplicas = hpa.spec.minReplicas.value_or(1);
  }
  if (out.report.rescaled)
    out.scaleUpdate = scales_.updated(hpa.metadata.namespace_, hpa.spec.scaleTargetRef.name);
  if (auto it = hpa.metadata.annotations.find(controls::kLastDecisionAnnotation);
      it != hpa.metadata.annotations.end()) {
    auto recorded = nlohmann::json::parse(it->second, nullptr, /*allow_exceptions=*/false);
    if (recorded.is_object()) out.recordedDecision = std::move(recorded);
  }
  return out;
}

}  // namespace hpa::explain
