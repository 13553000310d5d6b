#include "serving/http_endpoints.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>

namespace hpa::serving {
namespace {

ServerResponse get(const std::string& path, const EndpointHandlers& h,
                   std::map<std::string, std::string> query = {}) {
  ServerRequest request{"GET", path, "", std::nullopt, ""};
  request.query = std::move(query);
  return routeEndpoint(request, h, Logger::discard());
}

TEST(Endpoints, Routes) {
  EndpointHandlers h{{{"runLoop", [] { return Status(); }}},
                     [] { return std::make_pair(false, std::string("informers syncing")); },
                     [] { return std::string("up 1\n"); }};
  auto route = [&](const std::string& method, const std::string& path) {
    return routeEndpoint(ServerRequest{method, path, "", std::nullopt, ""}, h, Logger::discard());
  };
  EXPECT_EQ(route("GET", "/healthz").status, 200);
  EXPECT_EQ(route("GET", "/healthz").body, "ok");
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

// The reason goes to the log only: /healthz is open to anonymous callers, and a reason names HPAs.
TEST(Endpoints, AFailingCheckFailsHealthzWithEachChecksLine) {
  std::atomic<bool> stalled{true};
  EndpointHandlers h{
      {{"leaderElection", [] { return Status(); }},
       {"runLoop",
        [&]() -> Status {
          if (stalled) return Error::of("stalled: 3 keys ready, none taken for 2m1s (limit 2m0s)");
          return Status();
        }},
       {"informers", [] { return Status(); }}},
      [] { return std::make_pair(true, std::string()); },
      [] { return std::string(); }};
  const auto failed = get("/healthz", h);
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(failed.body,
            "[+]ping ok\n"
            "[+]leaderElection ok\n"
            "[-]runLoop failed: reason withheld\n"
            "[+]informers ok\n"
            "healthz check failed\n");
  const auto livez = get("/livez", h);
  EXPECT_EQ(livez.status, 500);
  EXPECT_NE(livez.body.find("\nlivez check failed\n"), std::string::npos) << livez.body;

  stalled = false;
  const auto passing = get("/healthz", h);
  EXPECT_EQ(passing.status, 200);
  EXPECT_EQ(passing.body, "ok");
  const auto verbose = get("/healthz", h, {{"verbose", ""}});
  EXPECT_EQ(verbose.status, 200);
  EXPECT_EQ(
      verbose.body,
      "[+]ping ok\n[+]leaderElection ok\n[+]runLoop ok\n[+]informers ok\nhealthz check passed\n");
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
