#include "replay/simulated_metrics.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "replay/simulated_workload.h"
#include "common/quote.h"

namespace hpa::replay {
namespace {

// The value one Ready pod reports.
std::int64_t perPodValue(const Series& series, std::int64_t value, int readyPods) {
  if (series.kind == SeriesKind::PerPod) return value;
  return static_cast<std::int64_t>(std::llround(static_cast<double>(value) / readyPods));
}

}  // namespace

std::string seriesNameFor(const api::MetricSpec& m) {
  if (m.type == api::kResourceMetric && m.resource) return m.resource->name;
  if (m.type == api::kContainerResourceMetric && m.containerResource) return m.containerResource->name;
  if (m.type == api::kPodsMetric && m.pods) return m.pods->metric.name;
  if (m.type == api::kObjectMetric && m.object) return m.object->metric.name;
  if (m.type == api::kExternalMetric && m.external) return m.external->metric.name;
  return "";
}

Status checkTraceCovers(const api::HorizontalPodAutoscaler& hpa, const Trace& trace) {
  std::string available;
  for (const auto& s : trace.series) available += fmt::format("{}{} ({})", available.empty() ? "" : ", ", s.metric, s.source);
  for (size_t i = 0; i < hpa.spec.metrics.size(); ++i) {
    const auto& m = hpa.spec.metrics[i];
    const std::string name = seriesNameFor(m);
    if (name.empty()) return Error::format("spec.metrics[{}]: a {} metric cannot be replayed", i, quote(m.type));
    const Series* s = trace.find(name);
    if (!s) {
      return Error::format("spec.metrics[{}] ({} {}) has no series in the trace; the trace has: {}", i, m.type, name,
                           available.empty() ? "nothing" : available);
    }
    if ((m.type == api::kObjectMetric || m.type == api::kExternalMetric) && s->kind != SeriesKind::Total) {
      return Error::format("spec.metrics[{}] ({} {}) is one value for the whole workload; series {} of {} is per-pod",
                           i, m.type, name, name, s->source);
    }
  }
  return Status();
}

void publishMetrics(const api::HorizontalPodAutoscaler& hpa, const Trace& trace, const MetricsMoment& moment,
                    const std::vector<std::shared_ptr<const api::Pod>>& pods, explain::Snapshot& world) {
  world.podMetrics.clear();
  world.customMetrics.clear();
  world.externalMetrics.clear();
  std::vector<const api::Pod*> ready;
  for (const auto& p : pods) {
    if (isReady(*p)) ready.push_back(p.get());
  }
  const auto windowSeconds = std::chrono::duration_cast<std::chrono::seconds>(moment.window).count();
  const std::string& ns = hpa.metadata.namespace_;

  // Resource usage per resource name, and the container each resource's value is reported on.
  std::map<std::string, std::int64_t> resourceValue;  // per ready pod, milli
  std::map<std::string, std::string> resourceContainer;
  for (const auto& m : hpa.spec.metrics) {
    const std::string name = seriesNameFor(m);
    const Series* series = trace.find(name);
    if (!series || ready.empty()) continue;
    auto value = series->valueAt(moment.at);
    if (!value) continue;
    if (m.type == api::kResourceMetric || m.type == api::kContainerResourceMetric) {
      resourceValue[name] = perPodValue(*series, *value, static_cast<int>(ready.size()));
      if (m.type == api::kContainerResourceMetric) resourceContainer[name] = m.containerResource->container;
    } else if (m.type == api::kPodsMetric) {
      for (const api::Pod* pod : ready) {
        api::MetricValue v;
        v.describedObject = {"Pod", ns, pod->name, "v1"};
        v.metricName = name;
        v.timestamp = moment.now;
        v.windowSeconds = windowSeconds;
        v.value = api::Quantity::fromMilli(perPodValue(*series, *value, static_cast<int>(ready.size())));
        world.customMetrics.push_back({std::move(v), {}});
      }
    }
  }
  // Object and External metrics do not depend on pods being Ready.
  for (const auto& m : hpa.spec.metrics) {
    const Series* series = trace.find(seriesNameFor(m));
    if (!series) continue;
    auto value = series->valueAt(moment.at);
    if (!value) continue;
    if (m.type == api::kObjectMetric) {
      const auto& ref = m.object->describedObject;
      api::MetricValue v;
      v.describedObject = {ref.kind, ns, ref.kind == "Namespace" ? ns : ref.name, ref.apiVersion};
      v.metricName = m.object->metric.name;
      v.timestamp = moment.now;
      v.windowSeconds = windowSeconds;
      v.value = api::Quantity::fromMilli(*value);
      world.customMetrics.push_back({std::move(v), {}});
    } else if (m.type == api::kExternalMetric) {
      api::ExternalMetricValue v;
      v.metricName = m.external->metric.name;
      if (m.external->metric.selector) v.metricLabels = m.external->metric.selector->matchLabels;
      v.timestamp = moment.now;
      v.windowSeconds = windowSeconds;
      v.value = api::Quantity::fromMilli(*value);
      world.externalMetrics.push_back(std::move(v));
    }
  }
  if (resourceValue.empty()) return;
  for (const api::Pod* pod : ready) {
    api::PodMetrics pm;
    pm.metadata.name = pod->name;
    pm.metadata.namespace_ = ns;
    pm.metadata.labels = pod->labels.toMap();
    pm.timestamp = moment.now;
    pm.window = moment.window;
    for (const auto& c : pod->containers) pm.containers.push_back({c.name, {}});
    if (pm.containers.empty()) pm.containers.push_back({"app", {}});
    for (const auto& [resource, milli] : resourceValue) {
      auto named = resourceContainer.find(resource);
      size_t holder = 0;
      for (size_t i = 0; named != resourceContainer.end() && i < pm.containers.size(); ++i) {
        if (pm.containers[i].name == named->second) holder = i;
      }
      for (size_t i = 0; i < pm.containers.size(); ++i) {
        pm.containers[i].usage[resource] = api::Quantity::fromMilli(i == holder ? milli : 0);
      }
    }
    world.podMetrics.push_back(std::move(pm));
  }
}

}  // namespace hpa::replay
