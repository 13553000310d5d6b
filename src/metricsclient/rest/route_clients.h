#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/metric_route.h"
#include "common/clock.h"
#include "common/log.h"
#include "kube/discovery.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"
#include "kube/transport.h"
#include "metricsclient/metric_routes.h"

namespace hpa::metricsclient {

// Builds the transport of a Service route's client (RestClient::makeTransport in the daemon).
using RouteTransportFactory =
    std::function<Result<std::unique_ptr<kube::Transport>>(const kube::RestConfig&)>;

struct RouteClientsSettings {
  // The controller's own connection: a Service route presents its credentials (the token, token
  // file, exec plugin or client certificate) to the adapter, which delegates their review to the
  // API server as it does for the aggregator's requests.
  kube::RestConfig credentials;
  RouteTransportFactory makeTransport;
  // How long a Service route keeps the endpoint it resolved (a failed request resolves anew).
  Duration resolveEvery = std::chrono::seconds(30);
  std::size_t maxRoutes = 64;  // clients kept; the least recently used goes first
  // The namespaces a Service route may lead to: the credentials go with it, so an HPA's author
  // must not pick where. Any other route fails its metric, saying `refusal`.
  std::vector<std::string> serviceNamespaces{};
  std::string refusal = "no Service route is allowed there (--metric-source-service-namespaces)";
};

// The address a Service route connects to: "https://<ip>:<port>" of the first ready address of
// the Endpoints port that serves the Service's `port`, as the aggregator resolves an APIService's
// Service (the Service's port, by name, to the endpoints' port). Endpoints, not EndpointSlices:
// every release from 1.20 serves them (discovery.k8s.io/v1 came in 1.21).
Result<std::string> resolveServiceEndpoint(kube::RestClient& apiServer,
                                           const api::ServiceReference& service);

// The clients of metric routes, one per route, built on first use and kept (bounded). An
// apiGroup route reads through the API server; a Service route from a ready endpoint of the
// Service, over HTTPS verified against the route's caBundle for <name>.<namespace>.svc (or not
// verified with insecureSkipTLSVerify). Thread-safe.
class RouteMetricsClients final : public MetricRoutes {
 public:
  RouteMetricsClients(kube::RestClient& apiServer, kube::Discovery& discovery,
                      RouteClientsSettings settings, Clock& clock, Logger logger);
  ~RouteMetricsClients() override;

  std::shared_ptr<MetricsClient> clientFor(const api::MetricRoute& route) override;
  // Forgets the custom metrics versions found (the run loop's call every sync period, as for the
  // default client).
  void invalidate();
  std::size_t size() const;

 private:
  struct Entry;
  Result<std::shared_ptr<Entry>> build(const api::MetricRoute& route);
  Result<std::shared_ptr<Entry>> buildService(const api::MetricRoute& route);
  bool fresh(const Entry& entry) const;
  void keep(const std::string& key, std::shared_ptr<Entry> entry);

  kube::RestClient& apiServer_;
  kube::Discovery& discovery_;
  RouteClientsSettings settings_;
  Clock& clock_;
  Logger logger_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
  std::uint64_t uses_ = 0;
};

}  // namespace hpa::metricsclient
