#include "replay/simulated_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/quote.h"
#include "loadmodel/pod_load.h"
#include "replay/simulated_workload.h"

namespace hpa::replay {
namespace {

// A replayed pod reports no start-up usage: until it is Ready it has no sample, as hpa-sim's
// pods have none without a workload's startupCpu.
std::optional<std::int64_t> podValue(const Series& series, std::int64_t value, const api::Pod& pod, int readyPods) {
  const auto spread = series.kind == SeriesKind::PerPod ? loadmodel::Spread::PerPod : loadmodel::Spread::Total;
  return loadmodel::podValue({value, spread, std::nullopt}, isReady(pod), readyPods);
}

// The metric's series and its value at this moment, when the trace has one yet.
std::optional<std::pair<const Series*, std::int64_t>> seriesValue(const api::MetricSpec& metric, const Trace& trace,
                                                                  Duration at) {
  const Series* series = trace.find(seriesNameFor(metric));
  if (!series) return std::nullopt;
  auto value = series->valueAt(at);
  if (!value) return std::nullopt;
  return std::pair{series, *value};
}

api::MetricValue metricValue(api::MetricObjectReference described, const std::string& name, std::int64_t milli,
                             const MetricsMoment& moment) {
  api::MetricValue v;
  v.describedObject = std::move(described);
  v.metricName = name;
  v.timestamp = moment.now;
  v.windowSeconds = std::chrono::duration_cast<std::chrono::seconds>(moment.window).count();
  v.value = api::Quantity::fromMilli(milli);
  return v;
}

// What the simulated metrics APIs serve at one moment, built metric by metric.
class Publisher {
 public:
  Publisher(const api::HorizontalPodAutoscaler& hpa, const Trace& trace, const MetricsMoment& moment,
            const std::vector<std::shared_ptr<const api::Pod>>& pods, explain::Snapshot& world)
      : trace_(trace), moment_(moment), pods_(pods), world_(world), ns_(hpa.metadata.namespace_) {
    readyPods_ = static_cast<int>(std::count_if(pods.begin(), pods.end(), [](const auto& p) { return isReady(*p); }));
  }

  // A Resource or ContainerResource metric: its value goes on each reporting pod's PodMetrics.
  void resource(const api::MetricSpec& m) {
    auto sv = seriesValue(m, trace_, moment_.at);
    if (!sv) return;
    const std::string name = seriesNameFor(m);
    if (m.type == api::kContainerResourceMetric) container_[name] = m.containerResource->container;
    for (const auto& pod : pods_) {
      if (auto v = podValue(*sv->first, sv->second, *pod, readyPods_)) usage_[pod->name][name] = *v;
    }
  }

  void pods(const api::MetricSpec& m) {
    auto sv = seriesValue(m, trace_, moment_.at);
    if (!sv) return;
    for (const auto& pod : pods_) {
      auto v = podValue(*sv->first, sv->second, *pod, readyPods_);
      if (!v) continue;
      world_.customMetrics.push_back({metricValue({"Pod", ns_, pod->name, "v1"}, seriesNameFor(m), *v, moment_), {}});
    }
  }

  // Object and External metrics are one value for the whole workload, whatever its pods.
  void object(const api::MetricSpec& m) {
    auto sv = seriesValue(m, trace_, moment_.at);
    if (!sv) return;
    const auto& ref = m.object->describedObject;
    world_.customMetrics.push_back(
        {metricValue({ref.kind, ns_, ref.kind == "Namespace" ? ns_ : ref.name, ref.apiVersion}, m.object->metric.name,
                     sv->second, moment_),
         {}});
  }

  void external(const api::MetricSpec& m) {
    auto sv = seriesValue(m, trace_, moment_.at);
    if (!sv) return;
    api::ExternalMetricValue v;
    v.metricName = m.external->metric.name;
    if (m.external->metric.selector) v.metricLabels = m.external->metric.selector->matchLabels;
    v.timestamp = moment_.now;
    v.windowSeconds = std::chrono::duration_cast<std::chrono::seconds>(moment_.window).count();
    v.value = api::Quantity::fromMilli(sv->second);
    world_.externalMetrics.push_back(std::move(v));
  }

  // The PodMetrics of every pod that reports a resource: each value on the container its
  // ContainerResource metric names, else on the first container; the others read zero.
  void podMetrics() {
    for (const auto& pod : pods_) {
      auto usage = usage_.find(pod->name);
      if (usage == usage_.end()) continue;
      api::PodMetrics pm;
      pm.metadata.name = pod->name;
      pm.metadata.namespace_ = ns_;
      pm.metadata.labels = pod->labels.toMap();
      pm.timestamp = moment_.now;
      pm.window = moment_.window;
      for (const auto& c : pod->containers) pm.containers.push_back({c.name, {}});
      if (pm.containers.empty()) pm.containers.push_back({"app", {}});
      for (const auto& [resource, milli] : usage->second) {
        const size_t holder = holderOf(pm, resource);
        for (size_t i = 0; i < pm.containers.size(); ++i) {
          pm.containers[i].usage[resource] = api::Quantity::fromMilli(i == holder ? milli : 0);
        }
      }
      world_.podMetrics.push_back(std::move(pm));
    }
  }

 private:
  size_t holderOf(const api::PodMetrics& pm, const std::string& resource) const {
    auto named = container_.find(resource);
    size_t holder = 0;
    for (size_t i = 0; named != container_.end() && i < pm.containers.size(); ++i) {
      if (pm.containers[i].name == named->second) holder = i;
    }
    return holder;
  }

  const Trace& trace_;
  const MetricsMoment& moment_;
  const std::vector<std::shared_ptr<const api::Pod>>& pods_;
  explain::Snapshot& world_;
  const std::string& ns_;
  int readyPods_ = 0;
  std::map<std::string, std::map<std::string, std::int64_t>> usage_;  // pod -> resource -> milli
  std::map<std::string, std::string> container_;                       // resource -> container
};

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
  Publisher publish(hpa, trace, moment, pods, world);
  // The per-pod metrics first, then the workload-wide ones.
  for (const auto& m : hpa.spec.metrics) {
    if (m.type == api::kResourceMetric || m.type == api::kContainerResourceMetric) publish.resource(m);
    if (m.type == api::kPodsMetric) publish.pods(m);
  }
  for (const auto& m : hpa.spec.metrics) {
    if (m.type == api::kObjectMetric) publish.object(m);
    if (m.type == api::kExternalMetric) publish.external(m);
  }
  publish.podMetrics();
}

}  // namespace hpa::replay
