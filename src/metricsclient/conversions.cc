#include "metricsclient/conversions.h"

#include <limits>
#include <optional>

namespace hpa::metricsclient {
namespace {

// Upstream's custom metrics client assumes a one-minute window when the adapter gives none.
constexpr Duration kDefaultCustomMetricWindow = std::chrono::minutes(1);
constexpr const char* kNoResourceMetrics = "no metrics returned from resource metrics API";

bool hasContainer(const api::PodMetrics& pod, const std::string& container) {
  for (const auto& c : pod.containers) {
    if (c.name == container) return true;
  }
  return false;
}

}  // namespace

Result<PodMetricsResult> resourceMetricsFromPodMetrics(const std::vector<api::PodMetrics>& items,
                                                       const std::string& resource,
                                                       const std::string& container) {
  std::vector<const api::PodMetrics*> pointers;
  pointers.reserve(items.size());
  for (const auto& item : items) pointers.push_back(&item);
  return resourceMetricsFromPodMetrics(pointers, resource, container);
}

std::optional<std::int64_t> podResourceUsage(const api::PodMetrics& pod,
                                             const std::string& resource,
                                             const std::string& container) {
  if (!container.empty()) {
    for (const auto& c : pod.containers) {
      if (c.name != container) continue;
      auto it = c.usage.find(resource);
      if (it == c.usage.end()) return std::nullopt;
      return it->second.milliValue();  // only the first container of that name counts
    }
    return std::nullopt;
  }
  if (pod.containers.empty()) return std::nullopt;
  std::int64_t sum = 0;
  for (const auto& c : pod.containers) {
    auto it = c.usage.find(resource);
    if (it == c.usage.end()) return std::nullopt;
    // A broken adapter's huge values saturate rather than overflow (Go would wrap around).
    if (__builtin_add_overflow(sum, it->second.milliValue(), &sum)) {
      sum = it->second.milliValue() > 0 ? std::numeric_limits<std::int64_t>::max()
                                        : std::numeric_limits<std::int64_t>::min();
    }
  }
  return sum;
}

Result<PodMetricsResult> resourceMetricsFromPodMetrics(
    const std::vector<const api::PodMetrics*>& items, const std::string& resource,
    const std::string& container) {
  if (items.empty()) return Error::of(kNoResourceMetrics);
  PodMetricsResult result;
  result.timestamp = items.front()->timestamp;
  replicacalc::PodMetricsInfo::Builder samples;
  samples.reserve(items.size());
  for (const auto* item : items) {
    const api::PodMetrics& pod = *item;
    if (auto value = podResourceUsage(pod, resource, container)) {
      samples.add(pod.metadata.name, replicacalc::PodMetric{*value, pod.timestamp, pod.window});
    } else if (!container.empty() && !result.podWithoutContainer && !hasContainer(pod, container)) {
      result.podWithoutContainer = pod.metadata.namespace_ + "/" + pod.metadata.name;
    }
  }
  result.metrics = std::move(samples).build();
  return result;
}

Result<PodMetricsResult> podMetricsFromMetricValues(const std::vector<api::MetricValue>& items) {
  if (items.empty()) return Error::of("no metrics returned from custom metrics API");
  PodMetricsResult result;
  result.timestamp = items.front().timestamp;
  replicacalc::PodMetricsInfo::Builder samples;
  samples.reserve(items.size());
  for (const auto& item : items) {
    Duration window = item.windowSeconds ? Duration(std::chrono::seconds(*item.windowSeconds))
                                         : kDefaultCustomMetricWindow;
    samples.add(item.describedObject.name,
                replicacalc::PodMetric{item.value.milliValue(), item.timestamp, window});
  }
  result.metrics = std::move(samples).build();
  return result;
}

Result<ObjectMetricResult> objectMetricFromMetricValues(
    const std::vector<api::MetricValue>& items) {
  if (items.size() != 1) {
    return Error::format(
        "the custom metrics API server returned {} results when we asked for exactly one",
        items.size());
  }
  return ObjectMetricResult{items.front().value.milliValue(), items.front().timestamp};
}

Result<ExternalMetricResult> externalMetricFromValues(
    const std::vector<api::ExternalMetricValue>& items) {
  if (items.empty()) return Error::of("no metrics returned from external metrics API");
  ExternalMetricResult result;
  result.timestamp = items.front().timestamp;
  result.values.reserve(items.size());
  for (const auto& item : items) result.values.push_back(item.value.milliValue());
  return result;
}

Error noResourceMetricsError() { return Error::of(kNoResourceMetrics); }

Error resourceFetchError(const Error& e) {
  return e.wrap("unable to fetch metrics from resource metrics API");
}
Error customFetchError(const Error& e) {
  return e.wrap("unable to fetch metrics from custom metrics API");
}
Error externalFetchError(const Error& e) {
  return e.wrap("unable to fetch metrics from external metrics API");
}

}  // namespace hpa::metricsclient
