#include "metricsclient/batching_metrics_client.h"

#include "metricsclient/api_selection.h"
#include "metricsclient/conversions.h"

namespace hpa::metricsclient {

PodLabelsLookup BatchingMetricsClient::labelsIn(const std::string& ns) const {
  return [this, &ns](const std::string& name) -> std::optional<api::Labels> {
    auto labels = podLabels_(ns, name);
    return labels ? std::move(labels) : std::optional<api::Labels>(api::Labels());
  };
}

Result<PodMetricsResult> BatchingMetricsClient::getResourceMetric(const std::string& resource,
                                                                  const std::string& ns,
                                                                  const api::Selector& selector,
                                                                  const std::string& container,
                                                                  Duration maxAge) {
  auto list = resourceLists_.get(ns, maxAge, [&]() -> Result<IndexedPodMetrics> {
    auto fetched = api_.listPodMetrics(ResourceMetricsRequest{ns, ""});
    if (!fetched.ok()) return fetched.error();
    return IndexedPodMetrics(std::move(*fetched), ns);
  });
  if (!list->ok()) return resourceFetchError(list->error());
  const ResourceMetricsRequest request = resourceMetricsRequest(ns, selector);
  if (podsOf_) return (*list)->resourceMetrics(request, resource, container, podsOf_, labelsIn(ns));
  auto selected = selectPodMetricsIn(request, (*list)->list().items, labelsIn(ns));
  if (!selected.ok()) return resourceFetchError(selected.error());
  return resourceMetricsFromPodMetrics(*selected, resource, container);
}

Result<PodMetricsResult> BatchingMetricsClient::getRawMetric(const std::string& metricName,
                                                             const std::string& ns,
                                                             const api::Selector& selector,
                                                             const api::Selector& metricSelector,
                                                             Duration maxAge) {
  const PodsMetricRequest request = podsMetricRequest(metricName, ns, selector, metricSelector);
  auto list =
      customLists_.get(std::make_tuple(ns, metricName, request.metricLabelSelector), maxAge, [&] {
        return api_.listPodsCustomMetric(
            PodsMetricRequest{ns, metricName, "", request.metricLabelSelector});
      });
  if (!list->ok()) return customFetchError(list->error());
  auto selected = selectPodsMetricValues(request, (*list)->items, labelsIn(ns));
  if (!selected.ok()) return customFetchError(selected.error());
  return podMetricsFromMetricValues(*selected);
}

Result<ObjectMetricResult> BatchingMetricsClient::getObjectMetric(
    const std::string& metricName, const std::string& ns,
    const api::CrossVersionObjectReference& object, const api::Selector& metricSelector) {
  return api_.getObjectMetric(metricName, ns, object, metricSelector);
}

Result<ExternalMetricResult> BatchingMetricsClient::getExternalMetric(
    const std::string& metricName, const std::string& ns, const api::Selector& metricSelector) {
  return api_.getExternalMetric(metricName, ns, metricSelector);
}

}  // namespace hpa::metricsclient
