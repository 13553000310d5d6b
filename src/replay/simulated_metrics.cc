#include "replay/simulated_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/overloaded.h"
#include "common/quote.h"
#include "loadmodel/pod_load.h"
#include "replay/simulated_workload.h"

namespace hpa::replay {
namespace {

// A replayed pod reports no start-up usage: until it is Ready it has no sample, as hpa-sim's
// pods have none without a workload's startupCpu.
std::optional<std::int64_t> podValue(const Series& series, std::int64_t value, const api::Pod& pod,
                                     int readyPods) {
  const auto spread =
      series.kind == SeriesKind::PerPod ? loadmodel::Spread::PerPod : loadmodel::Spread::Total;
  return loadmodel::podValue({value, spread, std::nullopt}, isReady(pod), readyPods);
}

// The series `name` and its value at this moment, when the trace has one yet.
std::optional<std::pair<const Series*, std::int64_t>> seriesValue(const std::string& name,
                                                                  const Trace& trace, Duration at) {
  const Series* series = trace.find(name);
  if (!series) return std::nullopt;
  auto value = series->valueAt(at);
  if (!value) return std::nullopt;
  return std::pair{series, *value};
}

api::MetricValue metricValue(api::MetricObjectReference described, const std::string& name,
                             std::int64_t milli, const MetricsMoment& moment) {
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
  Publisher(const api::HorizontalPodAutoscaler& hpa, const Trace& trace,
            const MetricsMoment& moment, const std::vector<std::shared_ptr<const api::Pod>>& pods,
            explain::Snapshot& world)
      : trace_(trace), moment_(moment), pods_(pods), world_(world), ns_(hpa.metadata.namespace_) {
    readyPods_ = static_cast<int>(
        std::count_if(pods.begin(), pods.end(), [](const auto& p) { return isReady(*p); }));
  }

  // What the metrics APIs serve of one metric, by its type.
  void metric(const api::MetricSpec& m) {
    std::visit(Overloaded{[&](const api::ResourceMetricSource& s) { resource(s.name, nullptr); },
                          [&](const api::ContainerResourceMetricSource& s) {
                            resource(s.name, &s.container);
                          },
                          [&](const api::PodsMetricSource& s) { pods(s); },
                          [&](const api::ObjectMetricSource& s) { object(s); },
                          [&](const api::ExternalMetricSource& s) { external(s); },
                          [](const api::UnknownMetricSource&) {}},
               m.source);
  }

  // A Resource or ContainerResource metric: its value goes on each reporting pod's PodMetrics
  // (on `container` when the metric names one).
  void resource(const std::string& name, const std::string* container) {
    auto sv = seriesValue(name, trace_, moment_.at);
    if (!sv) return;
    if (container) container_[name] = *container;
    for (const auto& pod : pods_) {
      if (auto v = podValue(*sv->first, sv->second, *pod, readyPods_)) usage_[pod->name][name] = *v;
    }
  }

  void pods(const api::PodsMetricSource& m) {
    auto sv = seriesValue(m.metric.name, trace_, moment_.at);
    if (!sv) return;
    for (const auto& pod : pods_) {
      auto v = podValue(*sv->first, sv->second, *pod, readyPods_);
      if (!v) continue;
      world_.customMetrics.push_back(
          {metricValue({"Pod", ns_, pod->name, "v1"}, m.metric.name, *v, moment_), {}});
    }
  }

  // Object and External metrics are one value for the whole workload, whatever its pods.
  void object(const api::ObjectMetricSource& m) {
    auto sv = seriesValue(m.metric.name, trace_, moment_.at);
    if (!sv) return;
    const auto& ref = m.describedObject;
    world_.customMetrics.push_back(
        {metricValue({ref.kind, ns_, ref.kind == "Namespace" ? ns_ : ref.name, ref.apiVersion},
                     m.metric.name, sv->second, moment_),
         {}});
  }

  void external(const api::ExternalMetricSource& m) {
    auto sv = seriesValue(m.metric.name, trace_, moment_.at);
    if (!sv) return;
    api::ExternalMetricValue v;
    v.metricName = m.metric.name;
    if (m.metric.selector) v.metricLabels = m.metric.selector->matchLabels;
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
  std::map<std::string, std::string> container_;                      // resource -> container
};

}  // namespace

Status checkTraceCovers(const api::HorizontalPodAutoscaler& hpa, const Trace& trace) {
  std::string available;
  for (const auto& s : trace.series)
    available += fmt::format("{}{} ({})", available.empty() ? "" : ", ", s.metric, s.source);
  for (size_t i = 0; i < hpa.spec.metrics.size(); ++i) {
    const auto& m = hpa.spec.metrics[i];
    const std::string& name = api::metricNameOf(m);
    if (name.empty())
      return Error::format("spec.metrics[{}]: a {} metric cannot be replayed", i,
                           quote(api::typeOf(m)));
    const Series* s = trace.find(name);
    if (!s) {
      return Error::format("spec.metrics[{}] ({} {}) has no series in the trace; the trace has: {}",
                           i, api::typeOf(m), name, available.empty() ? "nothing" : available);
    }
    if (api::isWorkloadWide(m) && s->kind != SeriesKind::Total) {
      return Error::format(
          "spec.metrics[{}] ({} {}) is one value for the whole workload; series {} of {} is "
          "per-pod",
          i, api::typeOf(m), name, name, s->source);
    }
  }
  return Status();
}

void publishMetrics(const api::HorizontalPodAutoscaler& hpa, const Trace& trace,
                    const MetricsMoment& moment,
                    const std::vector<std::shared_ptr<const api::Pod>>& pods,
                    explain::Snapshot& world) {
  world.podMetrics.clear();
  world.customMetrics.clear();
  world.externalMetrics.clear();
  Publisher publish(hpa, trace, moment, pods, world);
  // The per-pod metrics first, then the workload-wide ones.
  for (const auto& m : hpa.spec.metrics) {
    if (!api::isWorkloadWide(m)) publish.metric(m);
  }
  for (const auto& m : hpa.spec.metrics) {
    if (api::isWorkloadWide(m)) publish.metric(m);
  }
  publish.podMetrics();
}

}  // namespace hpa::replay
