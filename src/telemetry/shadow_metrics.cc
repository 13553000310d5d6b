#include "telemetry/shadow_metrics.h"

namespace hpa::telemetry {
namespace {

constexpr shadow::DivergenceKind kKinds[] = {
    shadow::DivergenceKind::DesiredReplicas, shadow::DivergenceKind::AbleToScale,
    shadow::DivergenceKind::ScalingActive, shadow::DivergenceKind::ScalingLimited};

constexpr shadow::Cause kCauses[] = {shadow::Cause::Agree, shadow::Cause::Inputs,
                                     shadow::Cause::History, shadow::Cause::Warmup,
                                     shadow::Cause::Rules};

void removeIfPresent(prometheus::Family<prometheus::Counter>& family,
                     const prometheus::Labels& labels) {
  if (family.Has(labels)) family.Remove(&family.Add(labels));
}

const char* resultOf(shadow::Cause cause) {
  return cause == shadow::Cause::Agree ? "agree" : "diverge";
}

prometheus::Labels comparisonLabels(const std::string& ns, const std::string& name,
                                    shadow::Cause cause) {
  return {{"namespace", ns},
          {"name", name},
          {"result", resultOf(cause)},
          {"cause", shadow::causeName(cause)}};
}

}  // namespace

ShadowMetrics::ShadowMetrics(prometheus::Registry& registry)
    : comparisons_(
          prometheus::BuildCounter()
              .Name("hpa_controller_shadow_comparisons_total")
              .Help("Decisions of the other HPA controller compared in shadow mode, by HPA, result "
                    "(agree or diverge) and cause (agree, inputs, history, warmup or rules).")
              .Register(registry)),
      divergences_(prometheus::BuildCounter()
                       .Name("hpa_controller_shadow_divergences_total")
                       .Help("Differences from the other HPA controller's decisions in shadow "
                             "mode, by HPA and kind "
                             "(desiredReplicas or a condition's status and reason).")
                       .Register(registry)) {}

void ShadowMetrics::hpaKnown(const std::string& ns, const std::string& name) {
  for (auto cause : kCauses) comparisons_.Add(comparisonLabels(ns, name, cause));
}

void ShadowMetrics::compared(const std::string& ns, const std::string& name, shadow::Cause cause,
                             const std::vector<shadow::Divergence>& divergences) {
  comparisons_
      .Add({{"namespace", ns},
            {"name", name},
            {"result", divergences.empty() ? "agree" : "diverge"},
            {"cause", shadow::causeName(cause)}})
      .Increment();
  for (const auto& d : divergences) {
    divergences_.Add({{"namespace", ns}, {"name", name}, {"kind", shadow::kindName(d.kind)}})
        .Increment();
  }
}

void ShadowMetrics::hpaForgotten(const std::string& ns, const std::string& name) {
  for (auto cause : kCauses) removeIfPresent(comparisons_, comparisonLabels(ns, name, cause));
  for (auto kind : kKinds) {
    removeIfPresent(divergences_,
                    {{"namespace", ns}, {"name", name}, {"kind", shadow::kindName(kind)}});
  }
}

}  // namespace hpa::telemetry
