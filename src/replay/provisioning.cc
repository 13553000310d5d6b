#include "replay/provisioning.h"

#include <chrono>
#include <limits>

#include "replay/replay.h"

namespace hpa::replay {
namespace {

// What each Ready pod's containers request of `resource` (milli); nullopt when none requests it.
std::optional<double> podRequest(const api::Pod& pod, const std::string& resource,
                                 const std::string& container) {
  std::optional<double> total;
  for (const auto& c : pod.containers) {
    if (!container.empty() && c.name != container) continue;
    if (auto milli = c.requests.get(resource))
      total = total.value_or(0) + static_cast<double>(*milli);
  }
  return total;
}

std::optional<double> perPodTarget(const api::MetricSpec& metric, const api::Pod& podTemplate) {
  const api::MetricTarget* target = api::targetOf(metric);
  if (target == nullptr) return std::nullopt;
  if (target->type == api::kAverageValueTarget && target->averageValue)
    return static_cast<double>(target->averageValue->milliValue());
  if (target->type != api::kUtilizationTarget || !target->averageUtilization) return std::nullopt;
  std::optional<double> request;
  if (const auto* r = metric.as<api::ResourceMetricSource>()) {
    request = podRequest(podTemplate, r->name, "");
  } else if (const auto* c = metric.as<api::ContainerResourceMetricSource>()) {
    request = podRequest(podTemplate, c->name, c->container);
  }
  if (!request) return std::nullopt;
  return *target->averageUtilization * *request / 100.0;
}

// Whether a metric of the tick is above its target beyond the tolerance.
bool aboveTarget(const Tick& tick, const ProvisioningInputs& in) {
  for (size_t i = 0; i < tick.metrics.size() && i < in.targets.size(); ++i) {
    const TickMetric& m = tick.metrics[i];
    if (!in.targets[i] || !m.value) continue;
    const Series* series = in.trace.find(m.name);
    double perPod = static_cast<double>(*m.value);
    if (series == nullptr || series->kind == SeriesKind::Total) {
      perPod = tick.readyPods > 0 ? perPod / tick.readyPods
                                  : (perPod > 0 ? std::numeric_limits<double>::infinity() : 0);
    }
    if (perPod > *in.targets[i] * (1 + in.tolerance)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::optional<double>> perPodTargets(const api::HorizontalPodAutoscaler& hpa,
                                                 const api::Pod& podTemplate) {
  std::vector<std::optional<double>> out;
  for (const auto& metric : hpa.spec.metrics) out.push_back(perPodTarget(metric, podTemplate));
  return out;
}

Provisioning measureProvisioning(const ProvisioningInputs& in) {
  Provisioning out;
  for (const auto& target : in.targets) out.perPodTarget = out.perPodTarget || target.has_value();
  for (size_t i = 0; i + 1 < in.ticks.size(); ++i) {
    const Tick& tick = in.ticks[i];
    if (tick.at < in.from) continue;
    const double minutes =
        std::chrono::duration<double, std::ratio<60>>(in.ticks[i + 1].at - tick.at).count();
    out.replicaHours += tick.replicas * minutes / 60;
    if (aboveTarget(tick, in)) out.podMinutesAboveTarget += tick.readyPods * minutes;
  }
  return out;
}

}  // namespace hpa::replay
