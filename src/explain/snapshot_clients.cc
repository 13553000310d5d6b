#include "explain/snapshot_clients.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "api/workload.h"
#include "common/quote.h"
#include "common/text.h"
#include "metricsclient/api_selection.h"
#include "metricsclient/conversions.h"

namespace hpa::explain {
namespace {

// Objects exported without a namespace are taken to be in the HPA's namespace.
bool inNamespace(const std::string& objectNs, const std::string& ns) {
  return objectNs.empty() || objectNs == ns;
}

std::string kindForResource(const controller::GroupVersionResource& r) {
  const api::BuiltinWorkload* w = api::builtinWorkloadByResource(r.group, r.resource);
  return w ? w->kind : "";
}

// The API server's NotFound text for a GET of the scale subresource of a missing object:
// `deployments/scale.apps "web" not found` (the scale storage names its subresource).
Error notFound(const controller::GroupVersionResource& r, const std::string& name) {
  std::string what = r.resource + "/scale" + (r.group.empty() ? "" : "." + r.group);
  return Error{fmt::format("{} {} not found", what, quote(name)), 404, "NotFound"};
}

}  // namespace

Result<std::shared_ptr<const api::HorizontalPodAutoscaler>> SnapshotHpaLister::get(
    const std::string& ns, const std::string& name) const {
  for (const auto& [hpa, origin] : s_.hpas) {
    if (hpa.metadata.name == name && hpa.metadata.namespace_ == ns) {
      return std::make_shared<const api::HorizontalPodAutoscaler>(hpa);
    }
  }
  return std::shared_ptr<const api::HorizontalPodAutoscaler>();
}

Result<api::SharedPods> SnapshotPodLister::list(const std::string& ns,
                                                const api::Selector& selector) const {
  auto out = std::make_shared<std::vector<std::shared_ptr<const api::Pod>>>();
  for (const auto& pod : s_.pods) {
    if (inNamespace(pod->namespace_, ns) && selector.matches(pod->labels)) out->push_back(pod);
  }
  return api::SharedPods(std::move(out));
}

const api::Pod* SnapshotMetricsClient::podNamed(const std::string& ns,
                                                const std::string& name) const {
  for (const auto& pod : s_.pods) {
    if (pod->name == name && inNamespace(pod->namespace_, ns)) return pod.get();
  }
  return nullptr;
}

metricsclient::PodLabelsLookup SnapshotMetricsClient::podLabels(const std::string& ns) const {
  return [this, ns](const std::string& name) -> std::optional<api::Labels> {
    if (const api::Pod* pod = podNamed(ns, name)) return pod->labels;
    return std::nullopt;
  };
}

std::vector<api::MetricValue> SnapshotMetricsClient::customValues() const {
  std::vector<api::MetricValue> values;
  values.reserve(s_.customMetrics.size());
  for (const auto& entry : s_.customMetrics) values.push_back(entry.value);
  return values;
}

Result<metricsclient::PodMetricsResult> SnapshotMetricsClient::getResourceMetric(
    const std::string& resource, const std::string& ns, const api::Selector& selector,
    const std::string& container, Duration /*maxAge*/) {
  auto selected = metricsclient::selectPodMetrics(
      metricsclient::resourceMetricsRequest(ns, selector), s_.podMetrics, podLabels(ns));
  if (!selected.ok()) return metricsclient::resourceFetchError(selected.error());
  return metricsclient::resourceMetricsFromPodMetrics(*selected, resource, container);
}

Result<metricsclient::PodMetricsResult> SnapshotMetricsClient::getRawMetric(
    const std::string& metricName, const std::string& ns, const api::Selector& selector,
    const api::Selector& metricSelector, Duration /*maxAge*/) {
  auto selected = metricsclient::selectPodsMetricValues(
      metricsclient::podsMetricRequest(metricName, ns, selector, metricSelector), customValues(),
      podLabels(ns));
  if (!selected.ok()) return metricsclient::customFetchError(selected.error());
  return metricsclient::podMetricsFromMetricValues(*selected);
}

Result<metricsclient::ObjectMetricResult> SnapshotMetricsClient::getObjectMetric(
    const std::string& metricName, const std::string& ns,
    const api::CrossVersionObjectReference& object, const api::Selector& metricSelector) {
  auto selected = metricsclient::selectObjectMetricValues(
      metricsclient::objectMetricRequest(metricName, ns, object, metricSelector), customValues());
  if (!selected.ok()) return metricsclient::customFetchError(selected.error());
  auto result = metricsclient::objectMetricFromMetricValues(*selected);
  if (!result.ok()) return metricsclient::customFetchError(result.error());
  return result;
}

Result<metricsclient::ExternalMetricResult> SnapshotMetricsClient::getExternalMetric(
    const std::string& metricName, const std::string& ns, const api::Selector& metricSelector) {
  auto selected = metricsclient::selectExternalMetricValues(
      metricsclient::externalMetricRequest(metricName, ns, metricSelector), s_.externalMetrics);
  if (!selected.ok()) return metricsclient::externalFetchError(selected.error());
  return metricsclient::externalMetricFromValues(*selected);
}

Result<std::vector<controller::GroupVersionResource>> SnapshotScaleClient::mappingsFor(
    const std::string& group, const std::string& kind) {
  if (const api::BuiltinWorkload* w = api::builtinWorkloadByKind(group, kind)) {
    return std::vector<controller::GroupVersionResource>{{w->group, w->version, w->resource}};
  }
  bool anyScaleObject =
      std::any_of(s_.scales.begin(), s_.scales.end(), [](const auto& e) { return e.kind.empty(); });
  if (!anyScaleObject)
    return Error::format("no matches for kind {} in group {}", quote(kind), quote(group));
  // A custom resource with a scale subresource: the usual plural of its kind.
  return std::vector<controller::GroupVersionResource>{{group, "", asciiLower(kind) + "s"}};
}

Result<api::Scale> SnapshotScaleClient::getScale(const std::string& ns,
                                                 const controller::GroupVersionResource& resource,
                                                 const std::string& name) {
  const std::string kind = kindForResource(resource);
  for (const auto& entry : s_.scales) {
    if (entry.scale.metadata.name != name || !inNamespace(entry.scale.metadata.namespace_, ns))
      continue;
    if (!entry.kind.empty() && entry.kind != kind) continue;
    return entry.scale;
  }
  return notFound(resource, name);
}

Result<api::Scale> SnapshotScaleClient::updateScale(const std::string&,
                                                    const controller::GroupVersionResource&,
                                                    const api::Scale&) {
  return Error::of("a snapshot cannot be updated");
}

Result<std::optional<api::OwnerReference>> SnapshotOwnerLookup::controllerOf(
    const std::string& ns, const std::string& kind, const std::string& name) const {
  for (const auto& e : s_.scales) {
    if (e.kind == kind && e.scale.metadata.name == name && e.scale.metadata.namespace_ == ns)
      return e.controllerRef;
  }
  return std::optional<api::OwnerReference>();
}

}  // namespace hpa::explain
