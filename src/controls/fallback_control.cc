#include "controls/fallback_control.h"

#include <fmt/format.h>

#include "common/overloaded.h"

namespace hpa::controls {
namespace {

std::string failures(int count) {
  return count == 1 ? "once" : fmt::format("{} times in a row", count);
}

// A failed metric has no computed name; its spec says which one it is, in the fallback's words.
std::string metricSpecLabel(const api::MetricSpec& m) {
  const std::string& name = api::metricNameOf(m);
  return std::visit(
      Overloaded{
          [&](const api::ResourceMetricSource&) { return fmt::format("{} resource", name); },
          [&](const api::ContainerResourceMetricSource& s) {
            return fmt::format("{} resource of container {}", name, s.container);
          },
          [&](const api::PodsMetricSource&) { return fmt::format("{} pods metric", name); },
          [&](const api::ObjectMetricSource&) { return fmt::format("{} object metric", name); },
          [&](const api::ExternalMetricSource&) { return fmt::format("{} external metric", name); },
          [](const api::UnknownMetricSource& s) { return s.type; }},
      m.source);
}

}  // namespace

void FallbackControl::metricFailed(ReconcileView& reconcile, FailedMetric& metric) {
  const auto& spec = reconcile.controls().fallback;
  if (!spec || metric.specError) return;  // a wrong spec is not an outage
  const auto& hpa = reconcile.hpa();
  const Time now = reconcile.now();
  // A decision that keeps nothing sees one failure: its own.
  const FailureRun run = reconcile.keepsState() ? failures_.failed(reconcile.key(), metric.index,
                                                                   hpa.spec.metrics.size(), now)
                                                : FailureRun{now, 1};
  if (!fallbackDue(*spec, run, now)) return;
  metric.fallback = FallbackReport{metricSpecLabel(hpa.spec.metrics[metric.index]), run,
                                   fallbackReplicas(*spec, metric.currentReplicas)};
}

void FallbackControl::metricSucceeded(ReconcileView& reconcile, std::size_t index) {
  if (reconcile.controls().fallback && reconcile.keepsState())
    failures_.succeeded(reconcile.key(), index);
}

void FallbackControl::afterMetrics(ReconcileView& reconcile, bool decided) {
  int fallbackCount = 0;
  if (decided) {
    for (std::size_t i = 0; i < reconcile.metricCount(); ++i)
      fallbackCount += reconcile.metricFallback(i) ? 1 : 0;
  }
  const auto* before = reconcile.conditionRead(api::kScalingActive);
  const bool wasFallingBack = before && before->reason == api::kMetricFallback;
  if (fallbackCount == 0) {
    if (wasFallingBack) {
      reconcile.controlsReport().fallbackEnded = true;
      reconcile.normalEvent(api::kMetricFallbackEnded,
                            "No metric proposes its fallback any more: the metrics decide again");
    }
    return;
  }
  std::string fallenBack;
  for (std::size_t i = 0; i < reconcile.metricCount(); ++i) {
    if (!reconcile.metricFallback(i)) continue;
    if (!fallenBack.empty()) fallenBack += ", ";
    fallenBack += reconcile.metricFallback(i)->metric;
  }
  // No counts or times here: the message stays the same while the fallback lasts, so the status
  // is not rewritten every sync.
  reconcile.condition(
      api::kScalingActive, api::kConditionTrue, api::kMetricFallback,
      fmt::format(
          "the HPA computed the replica count with the fallback of failed metrics ({}: {}); "
          "the working metrics still count",
          kFallbackAnnotation, fallenBack));
  if (wasFallingBack) return;
  reconcile.controlsReport().fallbackStarted = true;
  for (std::size_t i = 0; i < reconcile.metricCount(); ++i) {
    const auto& f = reconcile.metricFallback(i);
    if (!f) continue;
    reconcile.warningEvent(
        api::kMetricFallback,
        fmt::format(
            "The {} failed {} since {}: its fallback ({}) proposes {} replicas; last error: {}",
            f->metric, failures(f->run.failures), formatRFC3339(f->run.since),
            formatFallback(*reconcile.controls().fallback), f->replicas,
            reconcile.metricError(i).value_or("")));
  }
}

}  // namespace hpa::controls
