#include "serving/request_auth.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

namespace hpa::serving {
namespace {

// Tokens the fake API server knows, and whom RBAC lets read what.
class FakeTokens final : public TokenReviewer {
 public:
  Result<TokenReviewResult> review(const std::string& token) override {
    seen.push_back(token);
    if (down) return Error::of("TokenReview failed: connection refused");
    if (token == "scraper-token")
      return TokenReviewResult{
          true, UserInfo{"system:serviceaccount:mon:prom", "u1", {"system:serviceaccounts"}, {}},
          ""};
    if (token == "admin-token")
      return TokenReviewResult{true, UserInfo{"admin", "", {"system:masters"}, {}}, ""};
    return TokenReviewResult{false, {}, "token lookup failed"};
  }
  std::vector<std::string> seen;
  bool down = false;
};

class FakeAccess final : public AccessReviewer {
 public:
  Result<AccessDecision> review(const UserInfo& user, const NonResourceAccess& access) override {
    reviews.emplace_back(user, access);
    if (down) return Error::of("SubjectAccessReview failed: timeout");
    const bool allowed = allowedUsers.count(user.name) && access.verb == "get";
    return AccessDecision{allowed, allowed ? "RBAC: allowed by ClusterRoleBinding" : ""};
  }
  std::set<std::string> allowedUsers{"system:serviceaccount:mon:prom", "alice"};
  std::vector<std::pair<UserInfo, NonResourceAccess>> reviews;
  bool down = false;
};

class RequestAuthTest : public ::testing::Test {
 protected:
  FakeTokens tokens;
  FakeAccess access;
  RequestAuth auth{tokens, access, RequestAuthSettings{}, Logger::discard()};

  static ServerRequest get(const std::string& path, const std::string& authorization = "") {
    return ServerRequest{"GET", path, authorization, std::nullopt, "127.0.0.1"};
  }
  static ServerRequest withCert(ServerRequest r, bool verified, std::string cn,
                                std::vector<std::string> orgs = {}) {
    r.clientCertificate =
        ClientCertificate{verified, verified ? "" : "unable to get local issuer certificate",
                          std::move(cn), std::move(orgs)};
    return r;
  }
  static std::string message(const ServerResponse& r) {
    return nlohmann::json::parse(r.body).value("message", "");
  }
};

TEST_F(RequestAuthTest, AnonymousScrapeIsForbiddenWithUpstreamsMessage) {
  auto refusal = auth.check(get("/metrics"));
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 403);
  EXPECT_EQ(refusal->contentType, "application/json");
  EXPECT_EQ(message(*refusal), "forbidden: User \"system:anonymous\" cannot get path \"/metrics\"");
  ASSERT_EQ(access.reviews.size(), 1u);
  EXPECT_EQ(access.reviews[0].first.groups, std::vector<std::string>{"system:unauthenticated"});
  EXPECT_EQ(access.reviews[0].second, (NonResourceAccess{"/metrics", "get"}));
  EXPECT_TRUE(tokens.seen.empty());
}

TEST_F(RequestAuthTest, HealthEndpointsNeedNoReview) {
  for (const char* path : {"/healthz", "/readyz", "/livez"})
    EXPECT_FALSE(auth.check(get(path))) << path;
  EXPECT_TRUE(access.reviews.empty());
}

TEST_F(RequestAuthTest, AllowedTokenReadsMetricsAsAnAuthenticatedUser) {
  EXPECT_FALSE(auth.check(get("/metrics", "Bearer scraper-token")));
  ASSERT_EQ(access.reviews.size(), 1u);
  const UserInfo& user = access.reviews[0].first;
  EXPECT_EQ(user.name, "system:serviceaccount:mon:prom");
  EXPECT_EQ(user.uid, "u1");
  EXPECT_EQ(user.groups,
            (std::vector<std::string>{"system:serviceaccounts", "system:authenticated"}));
  // The scheme is case-insensitive, as upstream's.
  EXPECT_FALSE(auth.check(get("/metrics", "bearer scraper-token")));
}

TEST_F(RequestAuthTest, TokenWithoutThePermissionIsForbidden) {
  tokens.seen.clear();
  access.allowedUsers.clear();
  auto refusal = auth.check(get("/metrics", "Bearer scraper-token"));
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 403);
  EXPECT_EQ(message(*refusal),
            "forbidden: User \"system:serviceaccount:mon:prom\" cannot get path \"/metrics\"");
}

TEST_F(RequestAuthTest, BadOrUnverifiableTokenIsUnauthorizedNotAnonymous) {
  for (bool down : {false, true}) {
    tokens.down = down;
    auto refusal = auth.check(get("/healthz", "Bearer wrong"));  // even on an always-allowed path
    ASSERT_TRUE(refusal);
    EXPECT_EQ(refusal->status, 401);
    EXPECT_EQ(message(*refusal), "Unauthorized");
    // The refusal never echoes the token.
    EXPECT_EQ(refusal->body.find("wrong"), std::string::npos);
  }
  EXPECT_TRUE(access.reviews.empty());
}

TEST_F(RequestAuthTest, NoTokenInTheHeaderMeansAnonymous) {
  for (const char* header : {"Basic YWRtaW46YWRtaW4=", "Bearer", "Bearer ", "Bearer a b"}) {
    tokens.seen.clear();
    auto authn = auth.authenticate(get("/metrics", header));
    ASSERT_TRUE(authn.ok()) << header;
    EXPECT_EQ(authn->user.name, "system:anonymous") << header;
    EXPECT_TRUE(tokens.seen.empty()) << header;
  }
}

TEST_F(RequestAuthTest, VerifiedClientCertificateIsCommonNameAndOrganizations) {
  auto authn = auth.authenticate(withCert(get("/metrics"), true, "alice", {"team-a", "team-b"}));
  ASSERT_TRUE(authn.ok());
  EXPECT_EQ(authn->method, "x509");
  EXPECT_EQ(authn->user.name, "alice");
  EXPECT_EQ(authn->user.groups,
            (std::vector<std::string>{"team-a", "team-b", "system:authenticated"}));
  EXPECT_FALSE(auth.check(withCert(get("/metrics"), true, "alice")));
  auto refusal = auth.check(withCert(get("/metrics"), true, "bob"));
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 403);
}

TEST_F(RequestAuthTest, UnverifiedCertificateFailsUnlessATokenAuthenticates) {
  auto refusal = auth.check(withCert(get("/metrics"), false, "alice"));
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 401);
  // Another authenticator succeeding wins, as in upstream's union.
  auto authn = auth.authenticate(withCert(get("/metrics", "Bearer scraper-token"), false, "alice"));
  ASSERT_TRUE(authn.ok());
  EXPECT_EQ(authn->user.name, "system:serviceaccount:mon:prom");
  // A verified certificate without a common name identifies nobody: the token decides.
  auto noName = auth.authenticate(withCert(get("/metrics", "Bearer scraper-token"), true, ""));
  ASSERT_TRUE(noName.ok());
  EXPECT_EQ(noName->method, "token");
}

TEST_F(RequestAuthTest, SuperusersSkipTheReview) {
  EXPECT_FALSE(auth.check(get("/metrics", "Bearer admin-token")));
  EXPECT_FALSE(auth.check(withCert(get("/metrics"), true, "root", {"system:masters"})));
  EXPECT_TRUE(access.reviews.empty());
}

TEST_F(RequestAuthTest, FailedReviewIsAnInternalError) {
  access.down = true;
  auto refusal = auth.check(get("/metrics", "Bearer scraper-token"));
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 500);
}

TEST_F(RequestAuthTest, VerbIsTheLowerCasedMethod) {
  ServerRequest post = get("/metrics", "Bearer scraper-token");
  post.method = "POST";
  auto refusal = auth.check(post);
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 403);
  EXPECT_EQ(access.reviews.back().second.verb, "post");
}

TEST_F(RequestAuthTest, AlwaysAllowPathsTakeATrailingWildcard) {
  RequestAuthSettings settings;
  settings.alwaysAllowPaths = {"/debug/*", "/healthz"};
  RequestAuth custom(tokens, access, settings, Logger::discard());
  EXPECT_FALSE(custom.check(get("/debug/pprof")));
  EXPECT_FALSE(custom.check(get("/healthz")));
  EXPECT_TRUE(custom.check(get("/healthz/ping")));
  EXPECT_TRUE(custom.check(get("/readyz")));
}

TEST(AlwaysAllowPaths, Parse) {
  auto paths = parseAlwaysAllowPaths("/healthz, /readyz,/livez,,/debug/*");
  ASSERT_TRUE(paths.ok()) << paths.error().message;
  EXPECT_EQ(*paths, (std::vector<std::string>{"/healthz", "/readyz", "/livez", "/debug/*"}));
  EXPECT_TRUE(parseAlwaysAllowPaths("")->empty());
  EXPECT_FALSE(parseAlwaysAllowPaths("healthz").ok());
  EXPECT_FALSE(parseAlwaysAllowPaths("/a*b").ok());
}

}  // namespace
}  // namespace hpa::serving
