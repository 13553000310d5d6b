#include "serving/http_server.h"

#include <gtest/gtest.h>

#include "kube/transport.h"
#include "serving/recording_handler.h"
#include "serving/self_signed_cert.h"

namespace hpa::serving {
namespace {

using std::chrono::seconds;

serving::PemCertificate certificate(const std::string& cn, const std::string& usage,
                                    std::vector<std::string> organizations = {}) {
  auto pem = serving::makeSelfSignedCertificate(serving::SelfSignedRequest{
      cn, {"localhost"}, {"127.0.0.1"}, std::chrono::hours(1), std::move(organizations), usage});
  EXPECT_TRUE(pem.ok()) << pem.error().message;
  return *pem;
}

Result<kube::HttpResponse> get(const std::string& base, const kube::TlsSettings& tls,
                               const std::string& path, const std::string& authorization = "") {
  auto transport = kube::makeCpprestTransport(base, tls, {seconds(60), seconds(60)});
  if (!transport.ok()) return transport.error();
  kube::HttpRequest request;
  request.pathAndQuery = path;
  if (!authorization.empty()) request.headers.emplace_back("Authorization", authorization);
  return (*transport)->roundTrip(request);
}

TEST(HttpServer, PlainRequestsReachTheHandler) {
  Recorder recorder;
  auto server = startHttpServer(ServerOptions{"127.0.0.1", 0, std::nullopt}, recorder.handler(),
                                Logger::discard());
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string base = "http://127.0.0.1:" + std::to_string((*server)->port());
  auto transport = kube::makeCpprestTransport(base, {}, {seconds(5), seconds(5)});
  ASSERT_TRUE(transport.ok());
  kube::HttpRequest request;
  request.pathAndQuery = "/metrics?name=x";
  request.headers.emplace_back("Authorization", "Bearer abc");
  for (int i = 1; i <= 2; ++i) {  // the second over the kept-alive connection
    auto r = (*transport)->roundTrip(request);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "hello /metrics");
    EXPECT_EQ(r->headers["x-seen"], std::to_string(i));
  }
  const ServerRequest seen = recorder.last();
  EXPECT_EQ(seen.method, "GET");
  EXPECT_EQ(seen.path, "/metrics");
  EXPECT_EQ(seen.authorization, "Bearer abc");
  EXPECT_FALSE(seen.clientCertificate);
  EXPECT_EQ(seen.remoteAddress, "127.0.0.1");
}

TEST(HttpServer, TlsWithoutClientCaAsksForNoCertificate) {
  Recorder recorder;
  const auto serving = certificate("server", "serverAuth");
  const auto alice = certificate("alice", "clientAuth");
  auto server = startHttpServer(
      ServerOptions{"127.0.0.1", 0, ServerTls{serving.certificate, serving.privateKey, ""}},
      recorder.handler(), Logger::discard());
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string base = "https://127.0.0.1:" + std::to_string((*server)->port());
  auto r =
      get(base, kube::TlsSettings{serving.certificate, false, alice.certificate, alice.privateKey},
          "/healthz");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(recorder.last().clientCertificate);
  // A client that does not trust the server's certificate does not get through.
  EXPECT_FALSE(get(base, kube::TlsSettings{alice.certificate, false, "", ""}, "/healthz").ok());
  EXPECT_EQ(recorder.count(), 1u);
}

TEST(HttpServer, ClientCertificatesAreVerifiedAgainstTheClientCa) {
  Recorder recorder;
  const auto serving = certificate("server", "serverAuth");
  const auto alice = certificate("alice", "clientAuth", {"team-a", "team-b"});
  const auto bob = certificate("bob", "serverAuth");  // trusted, but not for client authentication
  const auto mallory = certificate("mallory", "clientAuth");  // not trusted
  auto server = startHttpServer(ServerOptions{"127.0.0.1", 0,
                                              ServerTls{serving.certificate, serving.privateKey,
                                                        alice.certificate + bob.certificate}},
                                recorder.handler(), Logger::discard());
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string base = "https://127.0.0.1:" + std::to_string((*server)->port());

  ASSERT_TRUE(
      get(base, kube::TlsSettings{serving.certificate, false, alice.certificate, alice.privateKey},
          "/a")
          .ok());
  auto seen = recorder.last().clientCertificate;
  ASSERT_TRUE(seen);
  EXPECT_TRUE(seen->verified) << seen->verifyError;
  EXPECT_EQ(seen->commonName, "alice");
  EXPECT_EQ(seen->organizations, (std::vector<std::string>{"team-a", "team-b"}));

  // Without a certificate the handshake still succeeds (anonymous or token callers).
  ASSERT_TRUE(get(base, kube::TlsSettings{serving.certificate, false, "", ""}, "/b").ok());
  EXPECT_EQ(recorder.last().path, "/b");
  EXPECT_FALSE(recorder.last().clientCertificate);

  // Untrusted, or trusted for the wrong purpose: presented, not verified; the handler decides.
  for (const auto* who : {&mallory, &bob}) {
    auto r =
        get(base, kube::TlsSettings{serving.certificate, false, who->certificate, who->privateKey},
            "/c");
    ASSERT_TRUE(r.ok()) << r.error().message;
    auto cert = recorder.last().clientCertificate;
    ASSERT_TRUE(cert);
    EXPECT_FALSE(cert->verified);
    EXPECT_FALSE(cert->verifyError.empty());
  }
}

TEST(HttpServer, ARequiredClientCertificateIsEnforcedAtTheHandshake) {
  Recorder recorder;
  const auto serving = certificate("server", "serverAuth");
  const auto alice = certificate("alice", "clientAuth");
  const auto bob = certificate("bob", "serverAuth");  // trusted, but not for client authentication
  const auto mallory = certificate("mallory", "clientAuth");  // not trusted
  ServerTls tls{serving.certificate, serving.privateKey, alice.certificate + bob.certificate, true};
  auto server =
      startHttpServer(ServerOptions{"127.0.0.1", 0, tls}, recorder.handler(), Logger::discard());
  ASSERT_TRUE(server.ok()) << server.error().message;
  const std::string base = "https://127.0.0.1:" + std::to_string((*server)->port());

  auto r =
      get(base, kube::TlsSettings{serving.certificate, false, alice.certificate, alice.privateKey},
          "/a");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);
  ASSERT_TRUE(recorder.last().clientCertificate);
  EXPECT_TRUE(recorder.last().clientCertificate->verified);
  EXPECT_EQ(recorder.last().clientCertificate->commonName, "alice");

  // No certificate, an untrusted one, or one not for client authentication: no request is read.
  EXPECT_FALSE(get(base, kube::TlsSettings{serving.certificate, false, "", ""}, "/b").ok());
  for (const auto* who : {&mallory, &bob}) {
    EXPECT_FALSE(
        get(base, kube::TlsSettings{serving.certificate, false, who->certificate, who->privateKey},
            "/c")
            .ok());
  }
  EXPECT_EQ(recorder.count(), 1u);
}

TEST(HttpServer, RefusesUnusableSettings) {
  const auto serving = certificate("server", "serverAuth");
  const auto other = certificate("other", "serverAuth");
  auto noop = [](const ServerRequest&) { return ServerResponse{}; };
  auto badCert =
      startHttpServer(ServerOptions{"127.0.0.1", 0, ServerTls{"not pem", serving.privateKey, ""}},
                      noop, Logger::discard());
  ASSERT_FALSE(badCert.ok());
  EXPECT_NE(badCert.error().message.find("serving certificate"), std::string::npos)
      << badCert.error().message;
  auto mismatch = startHttpServer(
      ServerOptions{"127.0.0.1", 0, ServerTls{serving.certificate, other.privateKey, ""}}, noop,
      Logger::discard());
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.error().message.find("matching the serving certificate"), std::string::npos)
      << mismatch.error().message;
  auto badCa = startHttpServer(
      ServerOptions{"127.0.0.1", 0, ServerTls{serving.certificate, serving.privateKey, "x"}}, noop,
      Logger::discard());
  EXPECT_FALSE(badCa.ok());
  auto badAddress =
      startHttpServer(ServerOptions{"localhost", 0, std::nullopt}, noop, Logger::discard());
  ASSERT_FALSE(badAddress.ok());
  EXPECT_NE(badAddress.error().message.find("not an IP address"), std::string::npos);
  auto first =
      startHttpServer(ServerOptions{"127.0.0.1", 0, std::nullopt}, noop, Logger::discard());
  ASSERT_TRUE(first.ok());
  auto taken = startHttpServer(ServerOptions{"127.0.0.1", (*first)->port(), std::nullopt}, noop,
                               Logger::discard());
  ASSERT_FALSE(taken.ok());
  EXPECT_NE(taken.error().message.find("cannot listen on 127.0.0.1:"), std::string::npos)
      << taken.error().message;
}

}  // namespace
}  // namespace hpa::serving
