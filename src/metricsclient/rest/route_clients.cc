#include "metricsclient/rest/route_clients.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <utility>

#include "common/json_value.h"
#include "kube/rest_list_watch.h"
#include "metricsclient/rest/rest_metrics_client.h"

namespace hpa::metricsclient {
namespace {

// The name of the Service's port `port` ("" for an unnamed one).
Result<std::string> servicePortName(const nlohmann::json& service,
                                    const api::ServiceReference& ref) {
  for (const auto& port : member(member(service, "spec"), "ports")) {
    if (int32Value(port, "port") == ref.port) return stringValue(port, "name");
  }
  return Error::format("service {}/{} has no port {}", ref.namespace_, ref.name, ref.port);
}

std::string hostPort(const std::string& host, std::int32_t port) {
  const bool v6 = host.find(':') != std::string::npos;
  return v6 ? fmt::format("https://[{}]:{}", host, port) : fmt::format("https://{}:{}", host, port);
}

// A Service route's client: the adapter's own connection, the API server's discovery for object
// kinds. A failed call makes the owner resolve the endpoint again.
class ServiceRouteClient final : public MetricsClient {
 public:
  ServiceRouteClient(std::unique_ptr<kube::RestClient> client, kube::Discovery& apiDiscovery,
                     MetricsApiGroups groups)
      : client_(std::move(client)), metrics_(*client_, apiDiscovery, std::move(groups)) {}

  Result<PodMetricsResult> getResourceMetric(const std::string& resource, const std::string& ns,
                                             const api::Selector& selector,
                                             const std::string& container,
                                             Duration maxAge) override {
    return noted(metrics_.getResourceMetric(resource, ns, selector, container, maxAge));
  }
  Result<PodMetricsResult> getRawMetric(const std::string& metricName, const std::string& ns,
                                        const api::Selector& selector,
                                        const api::Selector& metricSelector,
                                        Duration maxAge) override {
    return noted(metrics_.getRawMetric(metricName, ns, selector, metricSelector, maxAge));
  }
  Result<ObjectMetricResult> getObjectMetric(const std::string& metricName, const std::string& ns,
                                             const api::CrossVersionObjectReference& object,
                                             const api::Selector& metricSelector) override {
    return noted(metrics_.getObjectMetric(metricName, ns, object, metricSelector));
  }
  Result<ExternalMetricResult> getExternalMetric(const std::string& metricName,
                                                 const std::string& ns,
                                                 const api::Selector& metricSelector) override {
    return noted(metrics_.getExternalMetric(metricName, ns, metricSelector));
  }

  bool failed() const { return failed_.load(); }
  void invalidate() { metrics_.invalidate(); }

 private:
  template <typename T>
  Result<T> noted(Result<T> result) {
    if (!result.ok()) failed_.store(true);
    return result;
  }

  std::unique_ptr<kube::RestClient> client_;
  RestMetricsClient metrics_;
  std::atomic<bool> failed_{false};
};

}  // namespace

Result<std::string> resolveServiceEndpoint(kube::RestClient& apiServer,
                                           const api::ServiceReference& ref) {
  const std::string where = fmt::format("{}/{}", ref.namespace_, ref.name);
  auto service =
      apiServer.get(fmt::format("/api/v1/namespaces/{}/services/{}",
                                kube::urlEncode(ref.namespace_), kube::urlEncode(ref.name)));
  if (!service.ok()) return service.error().wrap(fmt::format("service {}", where));
  // As the aggregator resolves one: the external name, on the Service's port.
  const auto& spec = member(*service, "spec");
  if (stringValue(spec, "type") == "ExternalName") {
    const std::string host = stringValue(spec, "externalName");
    if (host.empty()) return Error::format("service {} has no externalName", where);
    return hostPort(host, ref.port);
  }
  auto portName = servicePortName(*service, ref);
  if (!portName.ok()) return portName.error();
  auto endpoints =
      apiServer.get(fmt::format("/api/v1/namespaces/{}/endpoints/{}",
                                kube::urlEncode(ref.namespace_), kube::urlEncode(ref.name)));
  if (!endpoints.ok()) return endpoints.error().wrap(fmt::format("endpoints {}", where));
  for (const auto& subset : member(*endpoints, "subsets")) {
    for (const auto& port : member(subset, "ports")) {
      if (stringValue(port, "name") != *portName) continue;
      for (const auto& address : member(subset, "addresses")) {
        const std::string ip = stringValue(address, "ip");
        if (!ip.empty()) return hostPort(ip, int32Value(port, "port"));
      }
    }
  }
  return Error::format("service {} has no ready endpoints for port {}", where, ref.port);
}

struct RouteMetricsClients::Entry {
  std::shared_ptr<MetricsClient> client;
  ServiceRouteClient* service = nullptr;  // the client, for a Service route
  RestMetricsClient* group = nullptr;     // the client, for an apiGroup route
  Time built{};
  std::uint64_t lastUse = 0;
};

RouteMetricsClients::RouteMetricsClients(kube::RestClient& apiServer, kube::Discovery& discovery,
                                         RouteClientsSettings settings, Clock& clock, Logger logger)
    : apiServer_(apiServer),
      discovery_(discovery),
      settings_(std::move(settings)),
      clock_(clock),
      logger_(std::move(logger)) {}

RouteMetricsClients::~RouteMetricsClients() = default;

namespace {

std::string routeKey(const api::MetricRoute& route) {
  return fmt::format("{}|{}|{}|{}", api::describeRoute(route), route.insecureSkipTLSVerify,
                     route.caBundle.size(), route.caBundle);
}

}  // namespace

bool RouteMetricsClients::fresh(const Entry& entry) const {
  if (!entry.service) return true;
  return !entry.service->failed() && clock_.now() - entry.built < settings_.resolveEvery;
}

std::shared_ptr<MetricsClient> RouteMetricsClients::clientFor(const api::MetricRoute& route) {
  const std::string key = routeKey(route);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end() && fresh(*it->second)) {
      it->second->lastUse = ++uses_;
      return it->second->client;
    }
  }
  // Built outside the lock: resolving a Service is two requests to the API server.
  auto entry = build(route);
  if (!entry.ok()) {
    logger_.v(2, "metric route unusable", "route", api::describeRoute(route), "err",
              entry.error().message);
    return std::make_shared<FailingMetricsClient>(entry.error());
  }
  keep(key, *entry);
  return (*entry)->client;
}

void RouteMetricsClients::keep(const std::string& key, std::shared_ptr<Entry> entry) {
  std::lock_guard<std::mutex> lock(mu_);
  entry->lastUse = ++uses_;
  entries_[key] = std::move(entry);
  while (entries_.size() > settings_.maxRoutes) {
    auto oldest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->second->lastUse < oldest->second->lastUse) oldest = it;
    }
    entries_.erase(oldest);
  }
}

Result<std::shared_ptr<RouteMetricsClients::Entry>> RouteMetricsClients::build(
    const api::MetricRoute& route) {
  if (route.service) return buildService(route);
  // KEP-6382: the same paths and wire format, in the route's group, through the API server.
  auto client = std::make_shared<RestMetricsClient>(
      apiServer_, discovery_,
      MetricsApiGroups{route.apiGroup, route.apiGroup, api::describeRoute(route)});
  auto entry = std::make_shared<Entry>();
  entry->group = client.get();
  entry->client = std::move(client);
  entry->built = clock_.now();
  return entry;
}

Result<std::shared_ptr<RouteMetricsClients::Entry>> RouteMetricsClients::buildService(
    const api::MetricRoute& route) {
  const std::string name = api::describeRoute(route);
  const auto& allowed = settings_.serviceNamespaces;
  if (std::find(allowed.begin(), allowed.end(), route.service->namespace_) == allowed.end()) {
    return Error::format("metric source {}: namespace {}: {}", name, route.service->namespace_,
                         settings_.refusal);
  }
  auto server = resolveServiceEndpoint(apiServer_, *route.service);
  if (!server.ok()) return server.error().wrap(fmt::format("metric source {}", name));
  kube::RestConfig config = settings_.credentials;
  config.server = *server;
  config.caData = route.caBundle;
  config.insecureSkipTlsVerify = route.insecureSkipTLSVerify;
  config.tlsServerName = route.serverName();
  config.source = name;
  auto transport = settings_.makeTransport(config);
  if (!transport.ok()) return transport.error();
  auto rest = std::make_unique<kube::RestClient>(config, std::move(*transport), clock_,
                                                 logger_.child("metric-route"));
  auto client = std::make_shared<ServiceRouteClient>(
      std::move(rest), discovery_,
      MetricsApiGroups{"custom.metrics.k8s.io", "external.metrics.k8s.io", name});
  logger_.v(2, "metric route resolved", "route", name, "endpoint", *server);
  auto entry = std::make_shared<Entry>();
  entry->service = client.get();
  entry->client = std::move(client);
  entry->built = clock_.now();
  return entry;
}

void RouteMetricsClients::invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, entry] : entries_) {
    if (entry->service) entry->service->invalidate();
    if (entry->group) entry->group->invalidate();
  }
}

std::size_t RouteMetricsClients::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace hpa::metricsclient
