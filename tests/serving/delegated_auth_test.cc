#include "serving/delegated_auth.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include "fakes/fake_transport.h"

namespace hpa::serving {
namespace {

struct Client {
  explicit Client(const nlohmann::json& answer, int status = 201) {
    auto transport = std::make_unique<hpa::testing::CannedTransport>(
        kube::HttpResponse{status, {}, answer.dump()});
    requests = transport->requests;
    kube::RestConfig config;
    config.server = "https://127.0.0.1:6443";
    client =
        std::make_unique<kube::RestClient>(config, std::move(transport), clock, Logger::discard());
  }
  hpa::testing::FakeClock clock;
  std::shared_ptr<std::vector<kube::HttpRequest>> requests;
  std::unique_ptr<kube::RestClient> client;
};

TEST(ApiTokenReviewer, PostsTheTokenAndReadsTheUser) {
  Client c(nlohmann::json::parse(R"({"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1",
    "spec":{"token":"t0k"},
    "status":{"authenticated":true,"user":{"username":"system:serviceaccount:mon:prom","uid":"42",
      "groups":["system:serviceaccounts","system:authenticated"],"extra":{"authentication.kubernetes.io/pod-name":["p"]}}}})"));
  ApiTokenReviewer reviewer(*c.client);
  auto r = reviewer.review("t0k");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->authenticated);
  EXPECT_EQ(r->user.name, "system:serviceaccount:mon:prom");
  EXPECT_EQ(r->user.uid, "42");
  EXPECT_EQ(r->user.groups,
            (std::vector<std::string>{"system:serviceaccounts", "system:authenticated"}));
  EXPECT_EQ(r->user.extra.at("authentication.kubernetes.io/pod-name"),
            std::vector<std::string>{"p"});
  ASSERT_EQ(c.requests->size(), 1u);
  const auto& request = c.requests->front();
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.pathAndQuery, "/apis/authentication.k8s.io/v1/tokenreviews");
  EXPECT_EQ(nlohmann::json::parse(request.body), tokenReviewRequest("t0k"));
}

TEST(ApiTokenReviewer, UnauthenticatedAndBrokenAnswers) {
  auto no = decodeTokenReview(
      nlohmann::json::parse(R"({"status":{"authenticated":false,"error":"token expired"}})"));
  ASSERT_TRUE(no.ok());
  EXPECT_FALSE(no->authenticated);
  EXPECT_EQ(no->error, "token expired");
  EXPECT_FALSE(decodeTokenReview(nlohmann::json::parse(R"({"kind":"TokenReview"})")).ok());
  EXPECT_FALSE(
      decodeTokenReview(nlohmann::json::parse(R"({"status":{"authenticated":true}})")).ok());
  EXPECT_FALSE(decodeTokenReview(
                   nlohmann::json::parse(
                       R"({"status":{"authenticated":true,"user":{"username":"a","groups":"x"}}})"))
                   .ok());
  // The API server refusing the review (e.g. no system:auth-delegator binding) is an error.
  Client c(nlohmann::json::parse(R"({"kind":"Status","code":403,"reason":"Forbidden",
    "message":"tokenreviews.authentication.k8s.io is forbidden"})"),
           403);
  auto r = ApiTokenReviewer(*c.client).review("t0k");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      r.error().message.find("TokenReview failed: tokenreviews.authentication.k8s.io is forbidden"),
      std::string::npos);
}

TEST(ApiAccessReviewer, AsksAboutTheNonResourceUrl) {
  Client c(nlohmann::json::parse(
      R"({"status":{"allowed":true,"reason":"RBAC: allowed by ClusterRoleBinding \"scrape\""}})"));
  ApiAccessReviewer reviewer(*c.client);
  const UserInfo user{"alice", "7", {"team", "system:authenticated"}, {{"scopes", {"a", "b"}}}};
  auto d = reviewer.review(user, NonResourceAccess{"/metrics", "get"});
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_TRUE(d->allowed);
  ASSERT_EQ(c.requests->size(), 1u);
  EXPECT_EQ(c.requests->front().pathAndQuery, "/apis/authorization.k8s.io/v1/subjectaccessreviews");
  auto body = nlohmann::json::parse(c.requests->front().body);
  EXPECT_EQ(body["kind"], "SubjectAccessReview");
  EXPECT_EQ(body["spec"]["user"], "alice");
  EXPECT_EQ(body["spec"]["uid"], "7");
  EXPECT_EQ(body["spec"]["groups"], nlohmann::json({"team", "system:authenticated"}));
  EXPECT_EQ(body["spec"]["extra"]["scopes"], nlohmann::json({"a", "b"}));
  EXPECT_EQ(body["spec"]["nonResourceAttributes"],
            nlohmann::json({{"path", "/metrics"}, {"verb", "get"}}));
  EXPECT_FALSE(body["spec"].contains("resourceAttributes"));
}

TEST(ApiAccessReviewer, DeniedWithReasons) {
  auto d = decodeSubjectAccessReview(nlohmann::json::parse(
      R"({"status":{"allowed":false,"denied":true,"reason":"no","evaluationError":"webhook down"}})"));
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->allowed);
  EXPECT_EQ(d->reason, "no; webhook down");
  EXPECT_FALSE(decodeSubjectAccessReview(nlohmann::json::parse("{}")).ok());
}

}  // namespace
}  // namespace hpa::serving
