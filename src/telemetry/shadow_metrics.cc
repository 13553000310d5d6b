#include "telemetry/shadow_metrics.h"

namespace hpa::telemetry {
namespace {

constexpr shadow::DivergenceKind kKinds[] = {shadow::DivergenceKind::DesiredReplicas,
                                             shadow::DivergenceKind::AbleToScale,
                                             shadow::DivergenceKind::ScalingActive,
                                             shadow::DivergenceKind::ScalingLimited};

void removeIfPresent(prometheus::Family<prometheus::Counter>& family, const prometheus::Labels& labels) {
  if (family.Has(labels)) family.Remove(&family.Add(labels));
}

}  // namespace

ShadowMetrics::ShadowMetrics(prometheus::Registry& registry)
    : comparisons_(prometheus::BuildCounter()
                       .Name("hpa_controller_shadow_comparisons_total")
                       .Help("Decisions of the other HPA controller compared in shadow mode, by HPA and result "
                             "(agree or diverge).")
                       .Register(registry)),
      divergences_(prometheus::BuildCounter()
                       .Name("hpa_controller_shadow_divergences_total")
                       .Help("Differences from the other HPA controller's decisions in shadow mode, by HPA and kind "
                             "(desiredReplicas or a condition's status and reason).")
                       .Register(registry)) {}

void ShadowMetrics::compared(const std::string& ns, const std::string& name,
                             const std::vector<shadow::Divergence>& divergences) {
  comparisons_.Add({{"namespace", ns}, {"name", name}, {"result", divergences.empty() ? "agree" : "diverge"}})
      .Increment();
  for (const auto& d : divergences) {
    divergences_.Add({{"namespace", ns}, {"name", name}, {"kind", shadow::kindName(d.kind)}}).Increment();
  }
}

void ShadowMetrics::hpaForgotten(const std::string& ns, const std::string& name) {
  for (const char* result : {"agree", "diverge"}) {
    removeIfPresent(comparisons_, {{"namespace", ns}, {"name", name}, {"result", result}});
  }
  for (auto kind : kKinds) {
    removeIfPresent(divergences_, {{"namespace", ns}, {"name", name}, {"kind", shadow::kindName(kind)}});
  }
}

}  // namespace hpa::telemetry
