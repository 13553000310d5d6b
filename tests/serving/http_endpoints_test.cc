#include "serving/http_endpoints.h"

#include <gtest/gtest.h>

namespace hpa::serving {
namespace {

TEST(Endpoints, Routes) {
  EndpointHandlers h{[] { return true; }, [] { return std::make_pair(false, std::string("informers syncing")); },
                     [] { return std::string("up 1\n"); }};
  auto route = [&](const std::string& method, const std::string& path) {
    return routeEndpoint(ServerRequest{method, path, "", std::nullopt, ""}, h);
  };
  EXPECT_EQ(route("GET", "/healthz").status, 200);
  EXPECT_EQ(route("GET", "/livez").body, "ok");
  EXPECT_EQ(route("GET", "/readyz").status, 503);
  EXPECT_EQ(route("GET", "/readyz").body, "informers syncing");
  auto metrics = route("GET", "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.body, "up 1\n");
  EXPECT_EQ(metrics.contentType, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(route("POST", "/metrics").status, 405);
  EXPECT_EQ(route("GET", "/debug").status, 404);
}

TEST(Endpoints, ServingTlsFromFilesOrSelfSigned) {
  ServingSettings s;
  auto generated = loadServingTls(s);
  ASSERT_TRUE(generated.ok()) << generated.error().message;
  EXPECT_NE(generated->certificatePem.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_TRUE(generated->clientCaPem.empty());
  s.tlsCertFile = "/nonexistent/tls.crt";
  EXPECT_FALSE(loadServingTls(s).ok());  // without its key
  s.tlsPrivateKeyFile = "/nonexistent/tls.key";
  auto missing = loadServingTls(s);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("--tls-cert-file"), std::string::npos);
  ServingSettings ca;
  ca.clientCaFile = "/nonexistent/ca.crt";
  auto noCa = loadServingTls(ca);
  ASSERT_FALSE(noCa.ok());
  EXPECT_NE(noCa.error().message.find("--client-ca-file"), std::string::npos);
}

}  // namespace
}  // namespace hpa::serving
