#include "controller/rules_notes.h"

#include <fmt/format.h>

namespace hpa::controller {
namespace {

// behavior.scaleUp.tolerance / behavior.scaleDown.tolerance: since 1.33, read with the gate on.
void toleranceNotes(const api::HorizontalPodAutoscalerSpec& spec,
                    const replicacalc::DecisionRules& rules, std::vector<std::string>& notes) {
  if (!spec.behavior || rules.behaviorTolerances()) return;
  const auto& b = *spec.behavior;
  for (const auto& [field, scaling] :
       {std::pair{"scaleUp", &b.scaleUp}, std::pair{"scaleDown", &b.scaleDown}}) {
    if (!*scaling || !(*scaling)->tolerance) continue;
    notes.push_back(
        rules.inclusiveTolerance
            ? fmt::format(
                  "behavior.{}.tolerance ignored: feature gate HPAConfigurableTolerance is off in "
                  "kube-controller-manager {} (its API server drops the field)",
                  field, rules.release())
            : fmt::format("behavior.{}.tolerance ignored: kube-controller-manager {} does not know "
                          "the field (1.33 "
                          "brought it, gate HPAConfigurableTolerance)",
                          field, rules.release()));
  }
}

// ContainerResource metrics: the type came in 1.20 behind gate HPAContainerMetrics.
void containerResourceNotes(const api::HorizontalPodAutoscalerSpec& spec,
                            const replicacalc::DecisionRules& rules,
                            std::vector<std::string>& notes) {
  for (std::size_t i = 0; i < spec.metrics.size(); ++i) {
    if (!api::namesType<api::ContainerResourceMetricSource>(spec.metrics[i])) continue;
    if (!rules.containerResourceMetrics) {
      notes.push_back(fmt::format(
          "metrics[{}]: kube-controller-manager {} does not know the ContainerResource type "
          "(1.20 brought it): its API server refuses the HPA, its controller fails the metric",
          i, rules.release()));
    } else if (!rules.gates.hpaContainerMetrics) {
      notes.push_back(fmt::format(
          "metrics[{}]: ContainerResource needs feature gate HPAContainerMetrics, off in "
          "kube-controller-manager {}: its "
          "API server refuses it on create, and its controller {} one stored before",
          i, rules.release(), rules.containerMetricsGateChecked ? "fails" : "still computes"));
    }
  }
}

}  // namespace

std::vector<std::string> rulesNotes(const api::HorizontalPodAutoscalerSpec& spec,
                                    const replicacalc::DecisionRules& rules) {
  std::vector<std::string> notes;
  toleranceNotes(spec, rules, notes);
  containerResourceNotes(spec, rules, notes);
  if (spec.minReplicas && *spec.minReplicas == 0 && !rules.gates.hpaScaleToZero) {
    notes.push_back(fmt::format(
        "minReplicas 0 needs feature gate HPAScaleToZero, off in kube-controller-manager {}: "
        "its API server refuses it on create; one stored before is decided as its controller "
        "decides it",
        rules.release()));
  }
  return notes;
}

}  // namespace hpa::controller
