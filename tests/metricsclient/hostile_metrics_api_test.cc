// The REST metrics client (as the daemon builds it: real transport, REST client, discovery)
// against a metrics adapter that answers nonsense: each answer is upstream's fetch error or a
// value upstream would also take, never a crash, an overflow or a guess.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "common/clock.h"
#include "fakes/scripted_http_server.h"
#include "kube/discovery.h"
#include "kube/rest_client.h"
#include "metricsclient/rest/rest_metrics_client.h"

namespace hpa::metricsclient {
namespace {

using hpa::testing::ScriptedHttpServer;
using std::chrono::seconds;

constexpr const char* kCoreVersions = R"({"kind":"APIVersions","versions":["v1"]})";
constexpr const char* kGroups = R"({"kind":"APIGroupList","groups":[{"name":"metrics.k8s.io",
  "versions":[{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}],
  "preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}}]})";

std::string podMetrics(const std::string& name, const std::string& containersJson) {
  return R"({"metadata":{"name":")" + name +
         R"(","namespace":"shop"},"timestamp":"2026-11-23T10:00:00Z",
    "window":"30s","containers":)" +
         containersJson + "}";
}

std::string listOf(const std::string& itemsJson, const std::string& kind = "PodMetricsList") {
  return R"({"kind":")" + kind +
         R"(","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[)" + itemsJson + "]}";
}

// Serves discovery, and `podMetricsBody` for the namespace's PodMetrics.
class Adapter {
 public:
  explicit Adapter(std::string podMetricsBody)
      : body_(std::move(podMetricsBody)),
        server_([this](const std::string& head, ScriptedHttpServer::Connection& c) {
          if (head.rfind("GET /api ", 0) == 0) {
            c.respond(200, kCoreVersions);
          } else if (head.rfind("GET /apis ", 0) == 0) {
            c.respond(200, kGroups);
          } else if (head.rfind("GET /apis/metrics.k8s.io/v1beta1/namespaces/shop/pods", 0) == 0) {
            c.respond(200, body_);
          } else {
            c.respond(404,
                      R"({"kind":"Status","status":"Failure","message":"not found","code":404})");
          }
        }) {
    kube::RestConfig config;
    config.server = server_.url();
    config.qps = 0;
    config.timeout = seconds(5);
    auto rest = kube::RestClient::create(config, clock_, Logger::discard());
    EXPECT_TRUE(rest.ok());
    rest_ = std::move(*rest);
    discovery_ = std::make_unique<kube::Discovery>(*rest_);
    metrics_ = std::make_unique<RestMetricsClient>(*rest_, *discovery_);
  }

  Result<PodMetricsResult> cpu() {
    return metrics_->getResourceMetric("cpu", "shop", api::Selector::everything(), "",
                                       Duration::zero());
  }

 private:
  std::string body_;
  ScriptedHttpServer server_;
  RealClock clock_;
  std::unique_ptr<kube::RestClient> rest_;
  std::unique_ptr<kube::Discovery> discovery_;
  std::unique_ptr<RestMetricsClient> metrics_;
};

TEST(HostileMetricsApi, WellFormedAnswerIsRead) {
  Adapter adapter(
      listOf(podMetrics("a", R"([{"name":"c","usage":{"cpu":"250m","memory":"1Mi"}}])")));
  auto r = adapter.cpu();
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->metrics.size(), 1u);
  EXPECT_EQ(r->metrics.at("a").value, 250);
}

TEST(HostileMetricsApi, WrongKindIsAFetchError) {
  Adapter adapter(listOf(podMetrics("a", R"([{"name":"c","usage":{"cpu":"250m"}}])"), "PodList"));
  auto r = adapter.cpu();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unable to fetch metrics from resource metrics API"),
            std::string::npos);
  EXPECT_NE(r.error().message.find("PodList"), std::string::npos) << r.error().message;
}

TEST(HostileMetricsApi, NotANumberQuantityIsAFetchError) {
  for (const char* q : {"NaN", "nan", "Inf", "-Inf", "1e", "", "0x10", "1.5.5"}) {
    Adapter adapter(
        listOf(podMetrics("a", std::string(R"([{"name":"c","usage":{"cpu":")") + q + R"("}}])")));
    auto r = adapter.cpu();
    ASSERT_FALSE(r.ok()) << "quantity " << q;
    EXPECT_NE(r.error().message.find("unable to fetch metrics from resource metrics API"),
              std::string::npos)
        << r.error().message;
  }
}

TEST(HostileMetricsApi, NegativeUsageIsTakenAsUpstreamTakesIt) {
  // Go's resource.Quantity parses "-100m": upstream computes with it, and so do we (no crash,
  // no silent change of the value).
  Adapter adapter(listOf(podMetrics("a", R"([{"name":"c","usage":{"cpu":"-100m"}}])")));
  auto r = adapter.cpu();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->metrics.at("a").value, -100);
}

TEST(HostileMetricsApi, DuplicatePodsCountOnce) {
  Adapter adapter(listOf(podMetrics("a", R"([{"name":"c","usage":{"cpu":"100m"}}])") + "," +
                         podMetrics("a", R"([{"name":"c","usage":{"cpu":"300m"}}])") + "," +
                         podMetrics("b", R"([{"name":"c","usage":{"cpu":"200m"}}])")));
  auto r = adapter.cpu();
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->metrics.size(), 2u) << "one sample per pod, as upstream's map by pod name";
  EXPECT_EQ(r->metrics.at("a").value, 300)
      << "the last sample of a pod wins, as upstream's map assignment";
  EXPECT_EQ(r->metrics.at("b").value, 200);
}

TEST(HostileMetricsApi, HugeUsageSaturatesInsteadOfOverflowing) {
  // Each container's usage is at the largest milli-value; their sum would overflow int64 (UB in
  // C++). It saturates: the pod reads as enormously loaded, which scales to maxReplicas at most.
  Adapter adapter(listOf(podMetrics(
      "a",
      R"([{"name":"c1","usage":{"cpu":"9223372036854775807"}},{"name":"c2","usage":{"cpu":"9223372036854775807"}},
              {"name":"c3","usage":{"cpu":"9223372036854775807"}}])")));
  auto r = adapter.cpu();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->metrics.at("a").value, std::numeric_limits<std::int64_t>::max());
}

TEST(HostileMetricsApi, EmptyAnswerIsUpstreamsNoMetricsError) {
  Adapter adapter(listOf(""));
  auto r = adapter.cpu();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "no metrics returned from resource metrics API");
}

}  // namespace
}  // namespace hpa::metricsclient
