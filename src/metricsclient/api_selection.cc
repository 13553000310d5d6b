#include "metricsclient/api_selection.h"

#include <fmt/format.h>

#include "common/quote.h"

namespace hpa::metricsclient {
namespace {

constexpr int kHttpBadRequest = 400;

// A selector query parameter as the API server reads it: absent (empty) selects everything.
Result<api::Selector> parseParam(const char* name, const std::string& text) {
  auto parsed = api::Selector::parse(text);
  if (!parsed.ok()) {
    return Error{fmt::format("invalid {} {}: {}", name, quote(text), parsed.error().message),
                 kHttpBadRequest, "BadRequest"};
  }
  return parsed;
}

bool inNamespace(const std::string& objectNs, const std::string& ns) {
  return objectNs.empty() || objectNs == ns;
}

bool podSelected(const std::string& name, const api::Selector& selector,
                 const PodLabelsLookup& podLabels) {
  if (selector.isEverything()) return true;
  auto labels = podLabels ? podLabels(name) : std::nullopt;
  return !labels || selector.matches(*labels);
}

bool seriesSelected(const api::MetricValue& value, const std::string& text,
                    const api::Selector& selector) {
  if (text.empty()) return true;
  if (!value.metricSelector) return selector.matches(api::Labels());
  if (selector.matches(api::Labels::fromMap(value.metricSelector->matchLabels)) &&
      value.metricSelector->matchExpressions.empty()) {
    return true;
  }
  auto echoed = api::Selector::fromLabelSelector(&*value.metricSelector);
  return echoed.ok() && echoed->toString() == text;
}

}  // namespace

bool ObjectMetricRequest::namespaceObject() const {
  // The group of "v1", "" and "/v1" is the core group.
  const auto slash = object.apiVersion.find('/');
  return object.kind == "Namespace" && (slash == std::string::npos || slash == 0);
}

ResourceMetricsRequest resourceMetricsRequest(const std::string& ns,
                                              const api::Selector& podSelector) {
  return {ns, podSelector.toString()};
}

PodsMetricRequest podsMetricRequest(const std::string& metricName, const std::string& ns,
                                    const api::Selector& podSelector,
                                    const api::Selector& metricSelector) {
  return {ns, metricName, podSelector.toString(), metricSelector.toString()};
}

ObjectMetricRequest objectMetricRequest(const std::string& metricName, const std::string& ns,
                                        const api::CrossVersionObjectReference& object,
                                        const api::Selector& metricSelector) {
  return {ns, metricName, object, metricSelector.toString()};
}

ExternalMetricRequest externalMetricRequest(const std::string& metricName, const std::string& ns,
                                            const api::Selector& metricSelector) {
  return {ns, metricName, metricSelector.toString()};
}

Result<std::vector<const api::PodMetrics*>> selectPodMetricsIn(
    const ResourceMetricsRequest& request, const std::vector<api::PodMetrics>& values,
    const PodLabelsLookup& podLabels) {
  auto selector = parseParam("labelSelector", request.labelSelector);
  if (!selector.ok()) return selector.error();
  std::vector<const api::PodMetrics*> out;
  for (const auto& m : values) {
    if (!inNamespace(m.metadata.namespace_, request.ns)) continue;
    const bool selected = m.metadata.labels.empty()
                              ? podSelected(m.metadata.name, *selector, podLabels)
                              : selector->matches(api::Labels::fromMap(m.metadata.labels));
    if (selected) out.push_back(&m);
  }
  return out;
}

Result<std::vector<api::PodMetrics>> selectPodMetrics(const ResourceMetricsRequest& request,
                                                      const std::vector<api::PodMetrics>& values,
                                                      const PodLabelsLookup& podLabels) {
  auto selected = selectPodMetricsIn(request, values, podLabels);
  if (!selected.ok()) return selected.error();
  std::vector<api::PodMetrics> out;
  out.reserve(selected->size());
  for (const auto* m : *selected) out.push_back(*m);
  return out;
}

Result<std::vector<api::MetricValue>> selectPodsMetricValues(
    const PodsMetricRequest& request, const std::vector<api::MetricValue>& values,
    const PodLabelsLookup& podLabels) {
  auto pods = parseParam("labelSelector", request.labelSelector);
  if (!pods.ok()) return pods.error();
  auto series = parseParam("metricLabelSelector", request.metricLabelSelector);
  if (!series.ok()) return series.error();
  std::vector<api::MetricValue> out;
  for (const auto& v : values) {
    if (v.metricName != request.metricName || v.describedObject.kind != "Pod") continue;
    if (!inNamespace(v.describedObject.namespace_, request.ns)) continue;
    if (!podSelected(v.describedObject.name, *pods, podLabels)) continue;
    if (!seriesSelected(v, request.metricLabelSelector, *series)) continue;
    out.push_back(v);
  }
  return out;
}

Result<std::vector<api::MetricValue>> selectObjectMetricValues(
    const ObjectMetricRequest& request, const std::vector<api::MetricValue>& values) {
  auto series = parseParam("metricLabelSelector", request.metricLabelSelector);
  if (!series.ok()) return series.error();
  const bool namespaceObject = request.namespaceObject();
  std::vector<api::MetricValue> out;
  for (const auto& v : values) {
    if (v.metricName != request.metricName || v.describedObject.kind != request.object.kind)
      continue;
    const bool sameObject = namespaceObject
                                ? v.describedObject.name == request.ns
                                : v.describedObject.name == request.object.name &&
                                      inNamespace(v.describedObject.namespace_, request.ns);
    if (!sameObject) continue;
    if (!seriesSelected(v, request.metricLabelSelector, *series)) continue;
    out.push_back(v);
  }
  return out;
}

Result<std::vector<api::ExternalMetricValue>> selectExternalMetricValues(
    const ExternalMetricRequest& request, const std::vector<api::ExternalMetricValue>& values) {
  auto selector = parseParam("labelSelector", request.labelSelector);
  if (!selector.ok()) return selector.error();
  std::vector<api::ExternalMetricValue> out;
  for (const auto& v : values) {
    if (v.metricName == request.metricName &&
        selector->matches(api::Labels::fromMap(v.metricLabels)))
      out.push_back(v);
  }
  return out;
}

}  // namespace hpa::metricsclient
