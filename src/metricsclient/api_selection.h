#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/hpa.h"
#include "api/label_selector.h"
#include "api/labels.h"
#include "api/metrics.h"
#include "common/result.h"

namespace hpa::metricsclient {

// The requests the HPA sends to the metrics APIs (docs/behavior.md, section 10), and the
// metrics APIs' side of them: which values an API returns for a request. The live client builds
// its queries from these requests; `explain`'s snapshot client answers the same requests from the
// values of a snapshot. Both start from the same selector strings, so they cannot disagree on
// what a selector means.
//
// Selector parameters carry the canonical string of the parsed selector. A nil metric selector
// converts to "select nothing", whose string is empty like "everything"'s, so the parameter is
// left out and the API returns every series of the metric: the request, not the Selector
// object, is what decides the answer.

using QueryParams = std::vector<std::pair<std::string, std::string>>;  // empty values are left out

// metrics.k8s.io: GET .../namespaces/{ns}/pods?labelSelector=
struct ResourceMetricsRequest {
  std::string ns;
  std::string labelSelector;
  QueryParams query() const { return {{"labelSelector", labelSelector}}; }
};

// custom.metrics.k8s.io: GET
// .../namespaces/{ns}/pods/*/{metric}?labelSelector=&metricLabelSelector=
struct PodsMetricRequest {
  std::string ns;
  std::string metricName;
  std::string labelSelector;
  std::string metricLabelSelector;
  QueryParams query() const {
    return {{"labelSelector", labelSelector}, {"metricLabelSelector", metricLabelSelector}};
  }
};

// custom.metrics.k8s.io: GET .../namespaces/{ns}/{resource}/{name}/{metric}?metricLabelSelector=
// (a Namespace object of the core group: .../namespaces/{ns}/metrics/{metric}, the HPA's own
// namespace whatever name the reference gives).
struct ObjectMetricRequest {
  std::string ns;
  std::string metricName;
  api::CrossVersionObjectReference object;
  std::string metricLabelSelector;
  QueryParams query() const { return {{"metricLabelSelector", metricLabelSelector}}; }
  bool namespaceObject() const;
};

// external.metrics.k8s.io: GET .../namespaces/{ns}/{metric}?labelSelector=
struct ExternalMetricRequest {
  std::string ns;
  std::string metricName;
  std::string labelSelector;
  QueryParams query() const { return {{"labelSelector", labelSelector}}; }
};

// The requests for the MetricsClient calls (the selectors as the controller passes them).
ResourceMetricsRequest resourceMetricsRequest(const std::string& ns,
                                              const api::Selector& podSelector);
PodsMetricRequest podsMetricRequest(const std::string& metricName, const std::string& ns,
                                    const api::Selector& podSelector,
                                    const api::Selector& metricSelector);
ObjectMetricRequest objectMetricRequest(const std::string& metricName, const std::string& ns,
                                        const api::CrossVersionObjectReference& object,
                                        const api::Selector& metricSelector);
ExternalMetricRequest externalMetricRequest(const std::string& metricName, const std::string& ns,
                                            const api::Selector& metricSelector);

// The labels of the pod named `name` in the request's namespace, when known: PodMetrics exported
// without labels and custom metric values name their pod only.
using PodLabelsLookup = std::function<std::optional<api::Labels>(const std::string& name)>;

// What each API returns for a request, out of every value it could serve, in their order.
// Values exported without a namespace count as in the request's namespace. A selector
// parameter the API cannot parse is its 400 BadRequest.
//
// The series of a custom metric value: adapters label what they return in its
// `metric.selector` (v1beta1: `selector`), either the series' labels as matchLabels or the
// request's own selector echoed back. An empty metricLabelSelector selects every series;
// otherwise a value is selected when its matchLabels satisfy the selector or it echoes exactly
// that selector.
//
// metrics.k8s.io: the PodMetrics of the namespace whose pod matches labelSelector (labels of
// the item, else of the pod; a pod of unknown labels is kept).
Result<std::vector<api::PodMetrics>> selectPodMetrics(const ResourceMetricsRequest& request,
                                                      const std::vector<api::PodMetrics>& values,
                                                      const PodLabelsLookup& podLabels);
// The same, pointing into `values` instead of copying.
Result<std::vector<const api::PodMetrics*>> selectPodMetricsIn(
    const ResourceMetricsRequest& request, const std::vector<api::PodMetrics>& values,
    const PodLabelsLookup& podLabels);
// custom.metrics.k8s.io, pods: the metric's values of Pods of the namespace whose pod matches
// labelSelector (a pod of unknown labels is kept) and whose series matches metricLabelSelector.
Result<std::vector<api::MetricValue>> selectPodsMetricValues(
    const PodsMetricRequest& request, const std::vector<api::MetricValue>& values,
    const PodLabelsLookup& podLabels);
// custom.metrics.k8s.io, object: the metric's values describing the object whose series
// matches metricLabelSelector.
Result<std::vector<api::MetricValue>> selectObjectMetricValues(
    const ObjectMetricRequest& request, const std::vector<api::MetricValue>& values);
// external.metrics.k8s.io: the metric's series whose metricLabels match labelSelector.
Result<std::vector<api::ExternalMetricValue>> selectExternalMetricValues(
    const ExternalMetricRequest& request, const std::vector<api::ExternalMetricValue>& values);

}  // namespace hpa::metricsclient
