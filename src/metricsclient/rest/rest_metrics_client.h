#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "api/metrics.h"
#include "kube/discovery.h"
#include "kube/rest_client.h"
#include "metricsclient/api_selection.h"
#include "metricsclient/metrics_api.h"

namespace hpa::metricsclient {

// The metrics client over the aggregated metrics APIs, as upstream's REST metrics client:
// metrics.k8s.io (v1 preferred, else v1beta1), custom.metrics.k8s.io (the preferred of v1beta2 /
// v1beta1, found by discovery and forgotten by invalidate() every sync period) and
// external.metrics.k8s.io/v1beta1. Thread-safe.
//
// A metric's route (KEP-6382) reads with the same paths and wire format from other groups, or
// from the adapter itself: `groups` names them and what errors call the route.
struct MetricsApiGroups {
  std::string custom = "custom.metrics.k8s.io";
  std::string external = "external.metrics.k8s.io";
  std::string route;  // "" for the aggregated defaults; else what errors name ("API group x")
};

class RestMetricsClient final : public MetricsApi {
 public:
  RestMetricsClient(kube::RestClient& client, kube::Discovery& discovery)
      : client_(client), discovery_(discovery) {}
  // `client`: the API server, or the adapter of a Service route; `discovery`: the API server's
  // (object kinds to resources).
  RestMetricsClient(kube::RestClient& client, kube::Discovery& discovery, MetricsApiGroups groups)
      : client_(client), discovery_(discovery), groups_(std::move(groups)) {}

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

  // Forgets the custom metrics API version (upstream re-discovers it every sync period).
  void invalidate();

  Result<api::PodMetricsList> listPodMetrics(const ResourceMetricsRequest& request) override;
  Result<api::MetricValueList> listPodsCustomMetric(const PodsMetricRequest& request) override;

 private:
  Result<std::string> resourceMetricsVersion();
  Result<std::string> customMetricsVersion();
  Result<std::string> routeCustomVersion();
  Result<api::MetricValueList> fetchCustom(const std::string& pathAfterVersion);
  Error customError(const Error& e) const;
  Error externalError(const Error& e) const;

  kube::RestClient& client_;
  kube::Discovery& discovery_;
  MetricsApiGroups groups_;
  std::mutex mu_;
  std::optional<std::string> resourceVersion_;
  std::optional<std::string> customVersion_;
};

}  // namespace hpa::metricsclient
