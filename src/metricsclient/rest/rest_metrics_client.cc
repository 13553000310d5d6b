#include "metricsclient/rest/rest_metrics_client.h"

#include <fmt/format.h>

#include "api/codec.h"
#include "kube/rest_list_watch.h"
#include "metricsclient/api_selection.h"
#include "metricsclient/conversions.h"

namespace hpa::metricsclient {
namespace {

std::string withQuery(std::string path, const QueryParams& params) {
  char sep = '?';
  for (const auto& [k, v] : params) {
    if (v.empty()) continue;
    path += sep;
    path += k + "=" + kube::urlEncode(v);
    sep = '&';
  }
  return path;
}

std::pair<std::string, std::string> splitApiVersion(const std::string& apiVersion) {
  auto slash = apiVersion.find('/');
  if (slash == std::string::npos) return {"", apiVersion};
  return {apiVersion.substr(0, slash), apiVersion.substr(slash + 1)};
}

}  // namespace

// A route's errors name it, as the aggregated APIs' name their API.
Error RestMetricsClient::customError(const Error& e) const {
  if (groups_.route.empty()) return customFetchError(e);
  return e.wrap(
      fmt::format("unable to fetch metrics from custom metrics API at {}", groups_.route));
}

Error RestMetricsClient::externalError(const Error& e) const {
  if (groups_.route.empty()) return externalFetchError(e);
  return e.wrap(
      fmt::format("unable to fetch metrics from external metrics API at {}", groups_.route));
}

void RestMetricsClient::invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  customVersion_.reset();
}

Result<std::string> RestMetricsClient::resourceMetricsVersion() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (resourceVersion_) return *resourceVersion_;
  }
  auto v = discovery_.pickVersion("metrics.k8s.io", {"v1", "v1beta1"});
  if (!v.ok()) {
    // Not cached as a failure: metrics-server may register after we started.
    discovery_.invalidate();
    v = discovery_.pickVersion("metrics.k8s.io", {"v1", "v1beta1"});
    if (!v.ok()) return v.error();
  }
  std::lock_guard<std::mutex> lock(mu_);
  resourceVersion_ = *v;
  return *v;
}

Result<std::string> RestMetricsClient::customMetricsVersion() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (customVersion_) return *customVersion_;
  }
  if (!groups_.route.empty()) return routeCustomVersion();
  // Fresh discovery each time the choice was forgotten, so a newly registered adapter is seen.
  discovery_.invalidate();
  auto versions = discovery_.versions(groups_.custom);
  if (!versions.ok()) return versions.error();
  if (versions->empty())
    return Error::format("no custom metrics API ({}) registered", groups_.custom);
  // The server's preferred version first, if known; else the first known one it lists.
  for (const auto& v : *versions) {
    if (v == "v1beta2" || v == "v1beta1") {
      std::lock_guard<std::mutex> lock(mu_);
      customVersion_ = v;
      return v;
    }
  }
  return Error::of("no known available metric versions found");
}

// A route's group is asked for its versions' resource lists, v1beta2 first: every adapter serves
// those (the aggregator's availability check reads them), where an adapter reached directly may
// serve no discovery of the groups it does not hold.
Result<std::string> RestMetricsClient::routeCustomVersion() {
  for (const char* version : {"v1beta2", "v1beta1"}) {
    auto list = client_.get(fmt::format("/apis/{}/{}", groups_.custom, version));
    if (!list.ok()) {
      if (list.error().httpCode == 404) continue;
      return list.error();
    }
    std::lock_guard<std::mutex> lock(mu_);
    customVersion_ = version;
    return std::string(version);
  }
  return Error::format("no custom metrics API ({}) served", groups_.custom);
}

Result<api::PodMetricsList> RestMetricsClient::listPodMetrics(
    const ResourceMetricsRequest& request) {
  auto version = resourceMetricsVersion();
  if (!version.ok()) return version.error();
  auto body = client_.get(
      withQuery(fmt::format("/apis/metrics.k8s.io/{}/namespaces/{}/pods", *version, request.ns),
                request.query()));
  if (!body.ok()) return body.error();
  return api::decodePodMetricsList(*body);
}

Result<PodMetricsResult> RestMetricsClient::getResourceMetric(const std::string& resource,
                                                              const std::string& ns,
                                                              const api::Selector& selector,
                                                              const std::string& container,
                                                              Duration /*maxAge*/) {
  auto list = listPodMetrics(resourceMetricsRequest(ns, selector));
  if (!list.ok()) return resourceFetchError(list.error());
  return resourceMetricsFromPodMetrics(list->items, resource, container);
}

Result<api::MetricValueList> RestMetricsClient::fetchCustom(const std::string& pathAfterVersion) {
  auto version = customMetricsVersion();
  if (!version.ok()) return version.error();
  auto body = client_.get(fmt::format("/apis/{}/{}{}", groups_.custom, *version, pathAfterVersion));
  if (!body.ok()) return body.error();
  if (body->value("kind", "") != "MetricValueList") {
    return Error::format(
        "the custom metrics API server didn't return MetricValueList, the type is {}",
        body->value("kind", ""));
  }
  return api::decodeMetricValueList(*body);
}

Result<api::MetricValueList> RestMetricsClient::listPodsCustomMetric(
    const PodsMetricRequest& request) {
  return fetchCustom(withQuery(
      fmt::format("/namespaces/{}/pods/*/{}", request.ns, request.metricName), request.query()));
}

Result<PodMetricsResult> RestMetricsClient::getRawMetric(const std::string& metricName,
                                                         const std::string& ns,
                                                         const api::Selector& selector,
                                                         const api::Selector& metricSelector,
                                                         Duration /*maxAge*/) {
  auto list = listPodsCustomMetric(podsMetricRequest(metricName, ns, selector, metricSelector));
  if (!list.ok()) return customError(list.error());
  return podMetricsFromMetricValues(list->items);
}

Result<ObjectMetricResult> RestMetricsClient::getObjectMetric(
    const std::string& metricName, const std::string& ns,
    const api::CrossVersionObjectReference& object, const api::Selector& metricSelector) {
  const auto request = objectMetricRequest(metricName, ns, object, metricSelector);
  auto [group, version] = splitApiVersion(object.apiVersion);
  std::string path;
  if (request.namespaceObject()) {
    path = fmt::format("/namespaces/{}/metrics/{}", ns, metricName);
  } else {
    auto mappings = discovery_.mappingsFor(group, object.kind);
    if (!mappings.ok()) {
      return customError(Error::format("unable to map kind {} to resource: {}", object.kind,
                                       mappings.error().message));
    }
    const auto& gvr = mappings->front();
    const std::string resource = gvr.group.empty() ? gvr.resource : gvr.resource + "." + gvr.group;
    path = fmt::format("/namespaces/{}/{}/{}/{}", ns, resource, object.name, metricName);
  }
  auto list = fetchCustom(withQuery(path, request.query()));
  if (!list.ok()) return customError(list.error());
  auto result = objectMetricFromMetricValues(list->items);
  if (!result.ok()) return customError(result.error());
  return result;
}

Result<ExternalMetricResult> RestMetricsClient::getExternalMetric(
    const std::string& metricName, const std::string& ns, const api::Selector& metricSelector) {
  auto body = client_.get(
      withQuery(fmt::format("/apis/{}/v1beta1/namespaces/{}/{}", groups_.external, ns, metricName),
                externalMetricRequest(metricName, ns, metricSelector).query()));
  if (!body.ok()) return externalError(body.error());
  auto list = api::decodeExternalMetricValueList(*body);
  if (!list.ok()) return externalError(list.error());
  return externalMetricFromValues(list->items);
}

}  // namespace hpa::metricsclient
