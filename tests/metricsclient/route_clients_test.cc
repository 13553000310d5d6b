// The clients of metric routes: a Service's endpoint, the client per route (its address, TLS name,
// CA and credentials), errors that name the route, re-resolution and the bound.

#include "metricsclient/rest/route_clients.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include "fakes/fake_transport.h"

namespace hpa::metricsclient {
namespace {

using hpa::testing::FakeTransport;
using ::testing::HasSubstr;

// Hands a RestClient a transport while the test keeps the one behind it.
class Forwarding final : public kube::Transport {
 public:
  explicit Forwarding(FakeTransport& to) : to_(to) {}
  Result<kube::HttpResponse> roundTrip(const kube::HttpRequest& r) override {
    return to_.roundTrip(r);
  }
  Result<std::unique_ptr<kube::ResponseStream>> openStream(const kube::HttpRequest& r) override {
    return to_.openStream(r);
  }

 private:
  FakeTransport& to_;
};

nlohmann::json service(const std::string& portName, int port) {
  return {{"kind", "Service"},
          {"spec", {{"ports", {{{"name", portName}, {"port", port}, {"targetPort", 8443}}}}}}};
}

nlohmann::json endpoints(nlohmann::json subsets) {
  return {{"kind", "Endpoints"}, {"subsets", std::move(subsets)}};
}

nlohmann::json externalValues(const std::string& name, const std::string& value) {
  return {{"kind", "ExternalMetricValueList"},
          {"apiVersion", "external.metrics.k8s.io/v1beta1"},
          {"items",
           {{{"metricName", name},
             {"metricLabels", nlohmann::json::object()},
             {"timestamp", "2026-01-01T00:00:00Z"},
             {"value", value}}}}};
}

const char* kServicePath = "/api/v1/namespaces/metrics/services/sim-a";
const char* kEndpointsPath = "/api/v1/namespaces/metrics/endpoints/sim-a";
const char* kDepthPath = "/apis/external.metrics.k8s.io/v1beta1/namespaces/default/depth";

class RouteClientsTest : public ::testing::Test {
 protected:
  RouteClientsTest()
      : apiServer_(hpa::testing::fakeRestClient(api_, clock_)), discovery_(*apiServer_) {
    api_->json("GET", kServicePath, service("https", 443));
    api_->json("GET", kEndpointsPath,
               endpoints({{{"addresses", {{{"ip", "10.0.0.7"}}}},
                           {"notReadyAddresses", {{{"ip", "10.0.0.8"}}}},
                           {"ports", {{{"name", "https"}, {"port", 8443}}}}}}));
  }

  RouteMetricsClients& routes(std::size_t maxRoutes = 64) {
    if (!routes_) {
      kube::RestConfig credentials;
      credentials.server = "https://api.example:6443";
      credentials.caData = "the API server's CA";
      credentials.bearerToken = "controller-token";
      credentials.qps = 0;
      RouteClientsSettings settings{
          credentials,
          [this](const kube::RestConfig& config) -> Result<std::unique_ptr<kube::Transport>> {
            configs_.push_back(config);
            return std::unique_ptr<kube::Transport>(std::make_unique<Forwarding>(adapter_));
          },
          std::chrono::seconds(30),
          maxRoutes,
          {"metrics"}};
      routes_ = std::make_unique<RouteMetricsClients>(*apiServer_, discovery_, settings, clock_,
                                                      Logger::discard());
    }
    return *routes_;
  }

  static api::MetricRoute serviceRoute() {
    api::MetricRoute route;
    route.service = api::ServiceReference{"metrics", "sim-a", 443};
    route.caBundle = "-----BEGIN CERTIFICATE-----\nsim-a\n-----END CERTIFICATE-----\n";
    return route;
  }

  hpa::testing::FakeClock clock_;
  FakeTransport* api_ = nullptr;
  std::unique_ptr<kube::RestClient> apiServer_;
  kube::Discovery discovery_;
  FakeTransport adapter_;
  std::vector<kube::RestConfig> configs_;
  std::unique_ptr<RouteMetricsClients> routes_;
};

TEST_F(RouteClientsTest, ResolvesTheReadyAddressOfTheServicePortsEndpoints) {
  auto url = resolveServiceEndpoint(*apiServer_, {"metrics", "sim-a", 443});
  ASSERT_TRUE(url.ok()) << url.error().message;
  EXPECT_EQ(*url, "https://10.0.0.7:8443");

  // The port is matched by the Service port's name; an IPv6 address is bracketed.
  api_->json("GET", kEndpointsPath,
             endpoints({{{"addresses", {{{"ip", "10.0.0.9"}}}},
                         {"ports", {{{"name", "metrics"}, {"port", 9090}}}}},
                        {{"addresses", {{{"ip", "fd00::5"}}}},
                         {"ports", {{{"name", "https"}, {"port", 8443}}}}}}));
  EXPECT_EQ(*resolveServiceEndpoint(*apiServer_, {"metrics", "sim-a", 443}),
            "https://[fd00::5]:8443");
}

TEST_F(RouteClientsTest, AnExternalNameServiceIsItsNameOnTheServicePort) {
  api_->json("GET", kServicePath,
             {{"spec", {{"type", "ExternalName"}, {"externalName", "adapter.example"}}}});
  EXPECT_EQ(*resolveServiceEndpoint(*apiServer_, {"metrics", "sim-a", 6443}),
            "https://adapter.example:6443");
  EXPECT_EQ(api_->count("GET", kEndpointsPath), 0);
}

TEST_F(RouteClientsTest, NoReadyEndpointOrNoSuchPortIsAnError) {
  api_->json("GET", kEndpointsPath,
             endpoints({{{"notReadyAddresses", {{{"ip", "10.0.0.8"}}}},
                         {"ports", {{{"name", "https"}, {"port", 8443}}}}}}));
  auto url = resolveServiceEndpoint(*apiServer_, {"metrics", "sim-a", 443});
  ASSERT_FALSE(url.ok());
  EXPECT_EQ(url.error().message, "service metrics/sim-a has no ready endpoints for port 443");

  api_->json("GET", kEndpointsPath, endpoints(nlohmann::json::array()));
  EXPECT_FALSE(resolveServiceEndpoint(*apiServer_, {"metrics", "sim-a", 443}).ok());

  url = resolveServiceEndpoint(*apiServer_, {"metrics", "sim-a", 8080});
  ASSERT_FALSE(url.ok());
  EXPECT_EQ(url.error().message, "service metrics/sim-a has no port 8080");

  url = resolveServiceEndpoint(*apiServer_, {"metrics", "gone", 443});
  ASSERT_FALSE(url.ok());
  EXPECT_THAT(url.error().message, HasSubstr("service metrics/gone"));
}

TEST_F(RouteClientsTest, AServiceRouteReadsFromTheEndpointWithTheControllersCredentials) {
  adapter_.json("GET", kDepthPath, externalValues("depth", "7"));
  auto client = routes().clientFor(serviceRoute());
  auto values = client->getExternalMetric("depth", "default", api::Selector::everything());
  ASSERT_TRUE(values.ok()) << values.error().message;
  EXPECT_EQ(values->values, std::vector<std::int64_t>{7000});

  ASSERT_EQ(configs_.size(), 1u);
  EXPECT_EQ(configs_[0].server, "https://10.0.0.7:8443");
  EXPECT_EQ(configs_[0].tlsServerName, "sim-a.metrics.svc");
  EXPECT_EQ(configs_[0].caData, serviceRoute().caBundle);  // not the API server's
  EXPECT_FALSE(configs_[0].insecureSkipTlsVerify);
  const auto requests = adapter_.requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto& headers = requests[0].headers;
  EXPECT_NE(
      std::find(headers.begin(), headers.end(),
                std::pair<std::string, std::string>{"Authorization", "Bearer controller-token"}),
      headers.end());
  // The API server was asked for the Service and its endpoints only, not for the metric.
  EXPECT_EQ(api_->count("GET", kDepthPath), 0);
  EXPECT_EQ(api_->count("GET", kEndpointsPath), 1);

  // Kept, and resolved again once older than resolveEvery.
  EXPECT_EQ(routes().clientFor(serviceRoute()), client);
  clock_.step(std::chrono::seconds(31));
  EXPECT_NE(routes().clientFor(serviceRoute()), client);
  EXPECT_EQ(api_->count("GET", kEndpointsPath), 2);
}

TEST_F(RouteClientsTest, APodsMetricOfAServiceRouteFindsItsVersionAtTheAdapter) {
  // The adapter serves v1beta1 only, and no discovery of other groups.
  adapter_.json("GET", "/apis/custom.metrics.k8s.io/v1beta1",
                {{"kind", "APIResourceList"}, {"groupVersion", "custom.metrics.k8s.io/v1beta1"}});
  adapter_.json(
      "GET",
      "/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/rps?labelSelector="
      "app%3Dweb",
      {{"kind", "MetricValueList"},
       {"apiVersion", "custom.metrics.k8s.io/v1beta1"},
       {"items",
        {{{"describedObject", {{"kind", "Pod"}, {"namespace", "default"}, {"name", "web-0"}}},
          {"metricName", "rps"},
          {"timestamp", "2026-01-01T00:00:00Z"},
          {"value", "5"}}}}});
  auto metrics = routes()
                     .clientFor(serviceRoute())
                     ->getRawMetric("rps", "default", *api::Selector::parse("app=web"),
                                    api::Selector::everything(), Duration(0));
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  EXPECT_EQ(metrics->metrics.size(), 1u);
  EXPECT_EQ(adapter_.count("GET", "/apis/custom.metrics.k8s.io/v1beta2"), 1);  // 404: not served
  EXPECT_EQ(api_->count("GET", "/apis"), 0);  // the API server's discovery is not asked
}

TEST_F(RouteClientsTest, ARefusedRequestFailsNamingTheRouteAndResolvesAgain) {
  adapter_.json(
      "GET", kDepthPath,
      {{"kind", "Status"}, {"code", 401}, {"reason", "Unauthorized"}, {"message", "Unauthorized"}},
      401);
  auto client = routes().clientFor(serviceRoute());
  auto values = client->getExternalMetric("depth", "default", api::Selector::everything());
  ASSERT_FALSE(values.ok());
  EXPECT_THAT(values.error().message,
              HasSubstr("unable to fetch metrics from external metrics API at service "
                        "metrics/sim-a:443: Unauthorized"));
  EXPECT_NE(routes().clientFor(serviceRoute()), client);
  EXPECT_EQ(api_->count("GET", kEndpointsPath), 2);
}

TEST_F(RouteClientsTest, AnUnresolvableServiceGivesAClientThatFailsSayingWhy) {
  api_->json("GET", kEndpointsPath, endpoints(nlohmann::json::array()));
  auto values = routes()
                    .clientFor(serviceRoute())
                    ->getExternalMetric("depth", "default", api::Selector::everything());
  ASSERT_FALSE(values.ok());
  EXPECT_EQ(values.error().message,
            "metric source service metrics/sim-a:443: service metrics/sim-a has no ready "
            "endpoints for port 443");
  EXPECT_TRUE(configs_.empty());
  EXPECT_EQ(routes().size(), 0u);
}

TEST_F(RouteClientsTest, AServiceOutsideTheAllowedNamespacesIsNotAsked) {
  api::MetricRoute route = serviceRoute();
  route.service->namespace_ = "tenant";
  auto values =
      routes().clientFor(route)->getExternalMetric("depth", "default", api::Selector::everything());
  ASSERT_FALSE(values.ok());
  EXPECT_EQ(values.error().message,
            "metric source service tenant/sim-a:443: namespace tenant: no Service route is allowed "
            "there (--metric-source-service-namespaces)");
  EXPECT_TRUE(api_->requests().empty());  // not even resolved
  EXPECT_TRUE(configs_.empty());
}

TEST_F(RouteClientsTest, AnApiGroupRouteReadsThatGroupThroughTheApiServer) {
  api_->json("GET", "/apis/b.example.com/v1beta1/namespaces/default/depth",
             externalValues("depth", "3"));
  api::MetricRoute route;
  route.apiGroup = "b.example.com";
  auto values =
      routes().clientFor(route)->getExternalMetric("depth", "default", api::Selector::everything());
  ASSERT_TRUE(values.ok()) << values.error().message;
  EXPECT_EQ(values->values, std::vector<std::int64_t>{3000});
  EXPECT_TRUE(configs_.empty());  // no connection of its own

  values =
      routes().clientFor(route)->getExternalMetric("other", "default", api::Selector::everything());
  ASSERT_FALSE(values.ok());
  EXPECT_THAT(values.error().message,
              HasSubstr("unable to fetch metrics from external metrics API at API group "
                        "b.example.com: "));
}

TEST_F(RouteClientsTest, KeepsAtMostMaxRoutesClients) {
  auto& clients = routes(2);
  for (const char* group : {"a.io", "b.io", "c.io"}) {
    api::MetricRoute route;
    route.apiGroup = group;
    clients.clientFor(route);
  }
  EXPECT_EQ(clients.size(), 2u);
}

}  // namespace
}  // namespace hpa::metricsclient
