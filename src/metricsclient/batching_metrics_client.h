#pragma once

#include <functional>
#include <optional>
#include <string>
#include <tuple>

#include "api/labels.h"
#include "api/metrics.h"
#include "common/clock.h"
#include "metricsclient/batch_cache.h"
#include "metricsclient/indexed_pod_metrics.h"
#include "metricsclient/metrics_api.h"

namespace hpa::metricsclient {

// The daemon's metrics client: per-pod metrics come from one list per namespace (resource
// metrics) or per namespace, metric and metric selector (custom pod metrics), fetched without a
// pod selector and shared by the HPAs of that namespace: an answer serves an HPA while it is
// younger than the `maxAge` that HPA asks with (half its own sync period), and is dropped after
// `retention`. Each HPA then gets what the API would have returned for its own
// request, selected by the same rule explain's snapshot client applies (api_selection.h), with
// the pods' labels from the pod cache (and of pods deleted lately, whose metrics the API may still
// return); a pod neither knows counts as unlabelled, so
// only a select-everything selector keeps it. Object and external metrics describe one object
// or series each and go to the API per HPA. Errors are upstream's, and a failed list fails
// exactly the HPAs that needed it.
class BatchingMetricsClient final : public MetricsClient {
 public:
  // The labels of pod `name` in namespace `ns`, nullopt when unknown (the pod cache).
  using PodLabels =
      std::function<std::optional<api::Labels>(const std::string& ns, const std::string& name)>;

  // `podsOf`: the pods of a selector in the pod cache (its selector index), so that each HPA's
  // selection from a namespace's list costs its own pods (IndexedPodMetrics); without it every
  // selection reads the whole list.
  BatchingMetricsClient(MetricsApi& api, PodLabels podLabels, Clock& clock, Duration retention,
                        IndexedPodMetrics::PodsOfSelector podsOf = nullptr)
      : api_(api),
        podLabels_(std::move(podLabels)),
        podsOf_(std::move(podsOf)),
        resourceLists_(clock, retention),
        customLists_(clock, retention) {}

  Result<PodMetricsResult> getResourceMetric(const std::string& resource, const std::string& ns,
                                             const api::Selector& selector,
                                             const std::string& container,
                                             Duration maxAge) override;
  Result<PodMetricsResult> getRawMetric(const std::string& metricName, const std::string& ns,
                                        const api::Selector& selector,
                                        const api::Selector& metricSelector,
                                        Duration maxAge) override;
  Result<ObjectMetricResult> getObjectMetric(const std::string& metricName, const std::string& ns,
                                             const api::CrossVersionObjectReference& object,
                                             const api::Selector& metricSelector) override;
  Result<ExternalMetricResult> getExternalMetric(const std::string& metricName,
                                                 const std::string& ns,
                                                 const api::Selector& metricSelector) override;

  // List requests sent so far (resource, custom).
  std::uint64_t resourceListsFetched() const { return resourceLists_.fetches(); }
  std::uint64_t customListsFetched() const { return customLists_.fetches(); }

 private:
  PodLabelsLookup labelsIn(const std::string& ns) const;

  MetricsApi& api_;
  PodLabels podLabels_;
  IndexedPodMetrics::PodsOfSelector podsOf_;
  BatchCache<std::string, IndexedPodMetrics> resourceLists_;  // by namespace
  // by namespace, metric name and metric selector string
  BatchCache<std::tuple<std::string, std::string, std::string>, api::MetricValueList> customLists_;
};

}  // namespace hpa::metricsclient
