#include "kube/request_log.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "fakes/fake_clock.h"
#include "fakes/fake_transport.h"
#include "kube/rest_client.h"

namespace hpa::kube {
namespace {

TEST(RequestLog, MasksCredentialHeadersKeepingTheScheme) {
  EXPECT_EQ(maskedHeaderValue("Authorization", "Bearer abc.def"), "Bearer <masked>");
  EXPECT_EQ(maskedHeaderValue("authorization", "Basic YWRtaW46cHc="), "Basic <masked>");
  EXPECT_EQ(maskedHeaderValue("Authorization", "abc"), "<masked>");
  EXPECT_EQ(maskedHeaderValue("Proxy-Authorization", "Bearer x"), "Bearer <masked>");
  EXPECT_EQ(maskedHeaderValue("User-Agent", "hpa-controller/0.1.0"), "hpa-controller/0.1.0");
  EXPECT_EQ(maskedHeaders({{"Authorization", "Bearer t"}, {"Accept", "application/json"}}),
            "Authorization: Bearer <masked>, Accept: application/json");
}

TEST(RequestLog, MasksCredentialFieldsOfJsonBodies) {
  const std::string review =
      R"({"kind":"TokenReview","spec":{"token":"s3cret"},"status":{"authenticated":true}})";
  EXPECT_EQ(
      maskedBody(review, 1000),
      R"({"kind":"TokenReview","spec":{"token":"<masked>"},"status":{"authenticated":true}})");
  const std::string exec =
      R"({"kind":"ExecCredential","status":{"token":"t","clientKeyData":"-----BEGIN EC PRIVATE KEY-----"}})";
  EXPECT_EQ(maskedBody(exec, 1000).find("PRIVATE KEY"), std::string::npos);
  EXPECT_EQ(maskedBody(exec, 1000).find("\"t\""), std::string::npos);
  const std::string secret =
      R"({"items":[{"kind":"Secret","data":{"ca.crt":"Y2E=","anything":"c2VjcmV0"}}]})";
  EXPECT_EQ(maskedBody(secret, 1000),
            R"({"items":[{"data":{"anything":"<masked>","ca.crt":"<masked>"},"kind":"Secret"}]})");
  // Not JSON: nothing could be masked inside it, so only its size is told.
  EXPECT_EQ(maskedBody("token=s3cret", 1000), "<12 bytes, not JSON>");
  EXPECT_EQ(maskedBody(R"({"message":"0123456789"})", 10), R"({"message"... (24 bytes))");
}

// A RestClient whose log (at -v 10) is kept in memory.
struct TracedClient {
  TracedClient(RestConfig config, kube::HttpResponse answer) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out);
    auto logger = std::make_shared<spdlog::logger>("test", sink);
    logger->set_level(spdlog::level::trace);
    auto transport = std::make_unique<hpa::testing::CannedTransport>(std::move(answer));
    requests = transport->requests;
    config.server = "https://127.0.0.1:6443";
    client = std::make_unique<RestClient>(config, std::move(transport), clock,
                                          Logger("rest", 10, logger));
  }
  std::ostringstream out;
  hpa::testing::FakeClock clock;
  std::shared_ptr<std::vector<HttpRequest>> requests;
  std::unique_ptr<RestClient> client;
};

TEST(RequestLog, RestClientTracesAtHighVerbosityWithoutCredentials) {
  RestConfig config;
  config.bearerToken = "kubeconfig-bearer-token";
  // The server echoes a TokenReview's spec, token included.
  TracedClient t(
      config, HttpResponse{201, {}, R"({"kind":"TokenReview","spec":{"token":"scraper-token"}})"});
  const nlohmann::json review{{"kind", "TokenReview"}, {"spec", {{"token", "scraper-token"}}}};
  ASSERT_TRUE(t.client->send("POST", "/apis/authentication.k8s.io/v1/tokenreviews", &review).ok());
  const std::string log = t.out.str();
  // The traces are there...
  EXPECT_NE(
      log.find("request verb=POST "
               "url=https://127.0.0.1:6443/apis/authentication.k8s.io/v1/tokenreviews status=201"),
      std::string::npos)
      << log;
  EXPECT_NE(log.find("Authorization: Bearer <masked>"), std::string::npos) << log;
  EXPECT_NE(log.find("request body"), std::string::npos) << log;
  EXPECT_NE(log.find("response body"), std::string::npos) << log;
  // ...and the credentials are not, though both went over the wire.
  EXPECT_EQ(log.find("kubeconfig-bearer-token"), std::string::npos) << log;
  EXPECT_EQ(log.find("scraper-token"), std::string::npos) << log;
  ASSERT_EQ(t.requests->size(), 1u);
  EXPECT_NE(t.requests->front().body.find("scraper-token"), std::string::npos);
}

TEST(RequestLog, ExecPluginAndBasicAuthCredentialsStayOutOfTheLog) {
  RestConfig exec;
  exec.exec = ExecConfig{
      "sh",
      {"-c",
       R"(echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-plugin-token"}}')"},
      {},
      "client.authentication.k8s.io/v1",
      "",
      false,
      "Never"};
  TracedClient e(exec, HttpResponse{200, {}, "{}"});
  ASSERT_TRUE(e.client->get("/api").ok());
  bool sent = false;
  for (const auto& [name, value] : e.requests->front().headers)
    sent |= value == "Bearer exec-plugin-token";
  EXPECT_TRUE(sent);
  EXPECT_EQ(e.out.str().find("exec-plugin-token"), std::string::npos) << e.out.str();

  RestConfig basic;
  basic.username = "admin";
  basic.password = "basic-password";
  TracedClient b(basic, HttpResponse{200, {}, "{}"});
  ASSERT_TRUE(b.client->get("/api").ok());
  EXPECT_NE(b.out.str().find("Authorization: Basic <masked>"), std::string::npos) << b.out.str();
  EXPECT_EQ(b.out.str().find("YWRtaW46YmFzaWMtcGFzc3dvcmQ="), std::string::npos) << b.out.str();
}

}  // namespace
}  // namespace hpa::kube
