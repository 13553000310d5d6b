#include "sim/servers.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fakes/fake_clock.h"
#include "kube/transport.h"
#include "serving/self_signed_cert.h"

namespace hpa::sim {
namespace {

using std::chrono::seconds;

serving::PemCertificate certificate(const std::string& cn, const std::string& usage) {
  auto pem = serving::makeSelfSignedCertificate(serving::SelfSignedRequest{
      cn, {"localhost"}, {"127.0.0.1"}, std::chrono::hours(1), {}, usage});
  EXPECT_TRUE(pem.ok()) << pem.error().message;
  return *pem;
}

Result<kube::HttpResponse> call(const std::string& base, const kube::TlsSettings& tls,
                                const kube::HttpRequest& request) {
  auto transport = kube::makeCpprestTransport(base, tls, {seconds(60), seconds(60)});
  if (!transport.ok()) return transport.error();
  return (*transport)->roundTrip(request);
}

kube::HttpRequest get(const std::string& pathAndQuery) {
  kube::HttpRequest request;
  request.pathAndQuery = pathAndQuery;
  return request;
}

kube::HttpRequest post(const std::string& path, const std::string& body) {
  kube::HttpRequest request;
  request.method = "POST";
  request.pathAndQuery = path;
  request.body = body;
  request.contentType = "application/json";
  return request;
}

// One workload of two Ready pods and a per-pod custom metric.
class SimServers : public ::testing::Test {
 protected:
  SimServers()
      : model_(*parseScenario("s.yaml", R"(workloads:
- {name: web, namespace: demo, selector: app=web, cpu: 600m}
podMetrics:
- {workload: web, metric: http_requests, total: "30"}
)"),
               1),
        pods_([this](const std::string& ns, const api::Labels& l) {
          return model_.classify(ns, l);
        }) {
    for (int i = 0; i < 2; ++i)
      pods_.upsert(
          {"demo", "web-" + std::to_string(i), api::Labels{{"app", "web"}}, true, {"app"}});
  }

  LoadModel model_;
  PodIndex pods_;
  testing::FakeClock clock_;
};

TEST_F(SimServers, MetricsApisAnswerOnlyClientsWithACertificateOfTheClientCa) {
  const auto serving = certificate("hpa-sim", "serverAuth");
  const auto aggregator = certificate("front-proxy-client", "clientAuth");
  const auto stranger = certificate("stranger", "clientAuth");
  serving::ServerTls tls{serving.certificate, serving.privateKey, aggregator.certificate, true};
  auto server = startMetricsServer(0, tls, pods_, model_, clock_, Logger::discard());
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string base = "https://127.0.0.1:" + std::to_string((*server)->port());
  const kube::TlsSettings asAggregator{serving.certificate, false, aggregator.certificate,
                                       aggregator.privateKey};

  // The path as the aggregator forwards it: percent-encoded, with an encoded selector.
  auto r = call(base, asAggregator,
                get("/apis/custom.metrics.k8s.io/v1beta2/namespaces/demo/pods/%2A/"
                    "http_requests?labelSelector=app%3Dweb"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->headers["content-type"], "application/json");
  const auto items = nlohmann::json::parse(r->body)["items"];
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0]["value"], "15");

  auto pods = call(base, asAggregator, get("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods"));
  ASSERT_TRUE(pods.ok()) << pods.error().message;
  EXPECT_EQ(nlohmann::json::parse(pods->body)["items"][0]["containers"][0]["usage"]["cpu"], "300m");

  auto written =
      call(base, asAggregator, post("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods", "{}"));
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(written->status, 405);
  EXPECT_EQ(nlohmann::json::parse(written->body)["kind"], "Status");

  // Without a certificate, or with one the client CA did not sign: refused at the handshake.
  EXPECT_FALSE(call(base, kube::TlsSettings{serving.certificate, false, "", ""},
                    get("/apis/metrics.k8s.io/v1beta1"))
                   .ok());
  EXPECT_FALSE(
      call(base,
           kube::TlsSettings{serving.certificate, false, stranger.certificate, stranger.privateKey},
           get("/apis/metrics.k8s.io/v1beta1"))
          .ok());
}

TEST_F(SimServers, WithoutServingFilesTheCertificateIsMadeInMemory) {
  const auto aggregator = certificate("front-proxy-client", "clientAuth");
  const std::string dir = ::testing::TempDir() + "/sim-servers-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/client-ca.crt") << aggregator.certificate;

  auto tls = metricsServerTls(TlsFiles{"", "", dir + "/client-ca.crt"});
  ASSERT_TRUE(tls.ok()) << tls.error().message;
  EXPECT_EQ(tls->clientCaPem, aggregator.certificate);
  EXPECT_TRUE(tls->requireClientCertificate);
  EXPECT_EQ(tls->privateKeyPem.rfind("-----BEGIN PRIVATE KEY-----", 0), 0u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);
  // It serves 127.0.0.1: a client that trusts it alone gets through.
  auto server = startMetricsServer(0, *tls, pods_, model_, clock_, Logger::discard());
  ASSERT_TRUE(server.ok()) << server.error().message;
  auto r = call(
      "https://127.0.0.1:" + std::to_string((*server)->port()),
      kube::TlsSettings{tls->certificatePem, false, aggregator.certificate, aggregator.privateKey},
      get("/apis/metrics.k8s.io/v1beta1"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);

  auto missing = metricsServerTls(TlsFiles{"", "", dir + "/nope.crt"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("nope.crt"), std::string::npos) << missing.error().message;
  std::filesystem::remove_all(dir);
}

TEST_F(SimServers, ControlEndpointShowsAndSetsTheLoad) {
  auto server = startControlServer(0, pods_, model_, Logger::discard());
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string base = "http://127.0.0.1:" + std::to_string((*server)->port());

  auto state = call(base, {}, get("/state"));
  ASSERT_TRUE(state.ok()) << state.error().message;
  ASSERT_EQ(state->status, 200);
  auto s = nlohmann::json::parse(state->body);
  EXPECT_EQ(s["workloads"][0]["cpuMilli"], 600);
  EXPECT_EQ(s["pods"], nlohmann::json({{"total", 2}, {"ready", 2}}));

  // One change per workload for ten thousand workloads is a body far beyond the server's default
  // limit.
  nlohmann::json changes = nlohmann::json::array();
  for (int i = 0; i < 10000; ++i)
    changes.push_back({{"workload", "web"}, {"cpu", std::to_string(700 + i % 2) + "m"}});
  changes.push_back({{"workload", "web"}, {"cpu", "900m"}});
  ASSERT_GT(changes.dump().size(), 64u * 1024);
  auto set = call(base, {}, post("/set", changes.dump()));
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_EQ(set->status, 200) << set->body;
  EXPECT_EQ(nlohmann::json::parse(set->body)["workloads"][0]["cpuMilli"], 900);

  // A bad change in a batch changes nothing.
  auto bad = call(
      base, {},
      post("/set", R"([{"workload": "web", "cpu": "1"}, {"workload": "web", "cpu": "lots"}])"));
  ASSERT_TRUE(bad.ok()) << bad.error().message;
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(nlohmann::json::parse(bad->body)["error"].get<std::string>().find("cpu"),
            std::string::npos)
      << bad->body;
  auto notJson = call(base, {}, post("/set", "{"));
  ASSERT_TRUE(notJson.ok());
  EXPECT_EQ(notJson->status, 400);
  state = call(base, {}, get("/state"));
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(nlohmann::json::parse(state->body)["workloads"][0]["cpuMilli"], 900);

  auto unknown = call(base, {}, get("/nope"));
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->status, 404);
}

// A metric's Service route reaches the adapter directly: hpa-sim then admits one bearer token and
// asks for no client certificate; the route verifies its certificate for <name>.<namespace>.svc
// while connecting to an address (the transport's server name).
TEST_F(SimServers, ABearerTokenAdmitsADirectCallerVerifiedByTheServicesName) {
  auto pem = serving::makeSelfSignedCertificate(serving::SelfSignedRequest{
      "sim-a", {"sim-a.metrics.svc"}, {}, std::chrono::hours(1), {}, "serverAuth"});
  ASSERT_TRUE(pem.ok()) << pem.error().message;
  serving::ServerTls tls{pem->certificate, pem->privateKey, "", false};
  auto server = startMetricsServer(0, tls, pods_, model_, clock_, Logger::discard(), Duration(0),
                                   MetricsAccess{"127.0.0.1", "the-token"});
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string base = "https://127.0.0.1:" + std::to_string((*server)->port());
  const std::string path = "/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods";
  auto withToken = [&](const std::string& token) {
    auto request = get(path);
    request.headers.push_back({"Authorization", "Bearer " + token});
    return request;
  };
  const kube::TlsSettings byServiceName{pem->certificate, false, "", "", "sim-a.metrics.svc"};

  auto r = call(base, byServiceName, withToken("the-token"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200) << r->body;
  auto refused = call(base, byServiceName, withToken("another-token"));
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->status, 401);
  EXPECT_EQ(nlohmann::json::parse(refused->body)["reason"], "Unauthorized");
  // The certificate names the Service, not the address: verified against the address, or against
  // another Service's name, the handshake fails.
  EXPECT_FALSE(
      call(base, kube::TlsSettings{pem->certificate, false, "", ""}, withToken("the-token")).ok());
  EXPECT_FALSE(call(base, kube::TlsSettings{pem->certificate, false, "", "", "sim-b.metrics.svc"},
                    withToken("the-token"))
                   .ok());

  auto files = metricsServerTls(TlsFiles{"", "", "", true});
  ASSERT_TRUE(files.ok()) << files.error().message;
  EXPECT_FALSE(files->requireClientCertificate);
  EXPECT_TRUE(files->clientCaPem.empty());
}

}  // namespace
}  // namespace hpa::sim
