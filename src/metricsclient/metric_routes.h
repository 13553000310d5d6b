#pragma once

#include <memory>

#include "api/metric_route.h"
#include "common/result.h"
#include "metricsclient/metrics_client.h"

namespace hpa::metricsclient {

// The clients of the metrics a metric source names (api/metric_route.h): the reconcile reads a
// routed metric from the client its route gives, and every other one from the default client.
class MetricRoutes {
 public:
  virtual ~MetricRoutes() = default;
  // Never null. When the route cannot be used (a Service without ready endpoints), a client
  // whose every call fails saying why, so that the metric fails as when its APIService fails.
  virtual std::shared_ptr<MetricsClient> clientFor(const api::MetricRoute& route) = 0;
};

// Every call fails with one error.
class FailingMetricsClient final : public MetricsClient {
 public:
  explicit FailingMetricsClient(Error error) : error_(std::move(error)) {}
  Result<PodMetricsResult> getResourceMetric(const std::string&, const std::string&,
                                             const api::Selector&, const std::string&,
                                             Duration) override {
    return error_;
  }
  Result<PodMetricsResult> getRawMetric(const std::string&, const std::string&,
                                        const api::Selector&, const api::Selector&,
                                        Duration) override {
    return error_;
  }
  Result<ObjectMetricResult> getObjectMetric(const std::string&, const std::string&,
                                             const api::CrossVersionObjectReference&,
                                             const api::Selector&) override {
    return error_;
  }
  Result<ExternalMetricResult> getExternalMetric(const std::string&, const std::string&,
                                                 const api::Selector&) override {
    return error_;
  }

 private:
  Error error_;
};

// Every route read through one client (replay's simulated metrics and explain's snapshot, which
// hold each metric's values by name, whichever adapter served them).
class SameClientRoutes final : public MetricRoutes {
 public:
  explicit SameClientRoutes(MetricsClient& client) : client_(&client, [](MetricsClient*) {}) {}
  std::shared_ptr<MetricsClient> clientFor(const api::MetricRoute&) override { return client_; }

 private:
  std::shared_ptr<MetricsClient> client_;
};

}  // namespace hpa::metricsclient
