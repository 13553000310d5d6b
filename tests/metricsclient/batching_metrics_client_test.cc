#include "metricsclient/batching_metrics_client.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <thread>

#include "fakes/fake_clock.h"
#include "fakes/fake_transport.h"
#include "fakes/pod_builder.h"
#include "kube/discovery.h"
#include "metricsclient/rest/rest_metrics_client.h"

namespace hpa::metricsclient {
namespace {

constexpr Duration kMaxAge = std::chrono::seconds(7);

using hpa::testing::PodBuilder;
using nlohmann::json;

constexpr const char* kShopPods = "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods";
constexpr const char* kShopQps = "/apis/custom.metrics.k8s.io/v1beta1/namespaces/shop/pods/*/qps";

json podMetrics(const std::string& name, const std::string& cpu) {
  return json{{"metadata", {{"name", name}, {"namespace", "shop"}}},
              {"timestamp", "2026-11-23T10:00:00Z"},
              {"window", "30s"},
              {"containers", {{{"name", "app"}, {"usage", {{"cpu", cpu}}}}}}};
}

json customValue(const std::string& pod, const std::string& value) {
  return json{{"describedObject",
               {{"kind", "Pod"}, {"namespace", "shop"}, {"name", pod}, {"apiVersion", "/v1"}}},
              {"metricName", "qps"},
              {"timestamp", "2026-11-23T10:00:00Z"},
              {"value", value}};
}

api::Selector selector(const std::string& text) { return *api::Selector::parse(text); }

class BatchingMetricsClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    transport_->json("GET", "/api", json{{"versions", {"v1"}}});
    transport_->json(
        "GET", "/apis",
        json{{"groups",
              {{{"name", "metrics.k8s.io"}, {"versions", {{{"version", "v1beta1"}}}}},
               {{"name", "custom.metrics.k8s.io"}, {"versions", {{{"version", "v1beta1"}}}}}}}});
    transport_->json("GET", kShopPods,
                     json{{"kind", "PodMetricsList"},
                          {"apiVersion", "metrics.k8s.io/v1beta1"},
                          {"items",
                           {podMetrics("web-1", "100m"), podMetrics("web-2", "300m"),
                            podMetrics("db-1", "7")}}});
    transport_->json("GET", kShopQps,
                     json{{"kind", "MetricValueList"},
                          {"apiVersion", "custom.metrics.k8s.io/v1beta1"},
                          {"items", {customValue("web-1", "10"), customValue("db-1", "99")}}});
    pods_ = {
        std::make_shared<const api::Pod>(PodBuilder("web-1", "shop").label("app", "web").build()),
        std::make_shared<const api::Pod>(PodBuilder("web-2", "shop").label("app", "web").build()),
        std::make_shared<const api::Pod>(PodBuilder("db-1", "shop").label("app", "db").build())};
  }
  std::optional<api::Labels> labels(const std::string& ns, const std::string& name) {
    for (const auto& p : pods_) {
      if (p->namespace_ == ns && p->name == name) return p->labels;
    }
    return std::nullopt;
  }

  hpa::testing::FakeClock clock_;
  hpa::testing::FakeTransport* transport_ = nullptr;
  std::unique_ptr<kube::RestClient> rest_ = hpa::testing::fakeRestClient(transport_, clock_);
  kube::Discovery discovery_{*rest_};
  RestMetricsClient api_{*rest_, discovery_};
  std::vector<std::shared_ptr<const api::Pod>> pods_;
  BatchingMetricsClient client_{
      api_, [this](const std::string& ns, const std::string& name) { return labels(ns, name); },
      clock_, std::chrono::seconds(14)};
};

TEST_F(BatchingMetricsClientTest, EachCallerReusesAnAnswerOnlyWhileItIsYoungerThanItAccepts) {
  // A long global period (60 s: answers may be 30 s old) next to an HPA whose own period is 2 s.
  const Duration global = std::chrono::seconds(30), own = std::chrono::seconds(1);
  ASSERT_TRUE(client_.getResourceMetric("cpu", "shop", selector("app=web"), "", global).ok());
  EXPECT_EQ(transport_->count("GET", kShopPods), 1);
  clock_.step(std::chrono::milliseconds(500));
  ASSERT_TRUE(client_.getResourceMetric("cpu", "shop", selector("app=db"), "", own).ok());
  EXPECT_EQ(transport_->count("GET", kShopPods), 1) << "half a second old: young enough for both";
  clock_.step(std::chrono::milliseconds(600));
  ASSERT_TRUE(client_.getResourceMetric("cpu", "shop", selector("app=db"), "", own).ok());
  EXPECT_EQ(transport_->count("GET", kShopPods), 2) << "1.1 s old: too old for the 2 s HPA";
  clock_.step(std::chrono::seconds(5));
  ASSERT_TRUE(client_.getResourceMetric("cpu", "shop", selector("app=web"), "", global).ok());
  EXPECT_EQ(transport_->count("GET", kShopPods), 2) << "5 s old: young enough for the 60 s HPA";
  ASSERT_TRUE(
      client_.getResourceMetric("cpu", "shop", selector("app=web"), "", Duration::zero()).ok());
  EXPECT_EQ(transport_->count("GET", kShopPods), 3) << "zero: always read";
}

TEST_F(BatchingMetricsClientTest, OneListServesEveryHpaOfTheNamespaceWithinTheWindow) {
  auto web = client_.getResourceMetric("cpu", "shop", selector("app=web"), "", kMaxAge);
  ASSERT_TRUE(web.ok()) << web.error().message;
  EXPECT_EQ(web->metrics.size(), 2u);
  EXPECT_EQ(web->metrics.at("web-1").value, 100);
  EXPECT_EQ(web->metrics.at("web-2").value, 300);
  auto db = client_.getResourceMetric("cpu", "shop", selector("app=db"), "app", kMaxAge);
  ASSERT_TRUE(db.ok()) << db.error().message;
  EXPECT_EQ(db->metrics.size(), 1u);
  EXPECT_EQ(db->metrics.at("db-1").value, 7000);
  EXPECT_EQ(transport_->count("GET", kShopPods), 1);  // no labelSelector: the whole namespace, once
  EXPECT_EQ(client_.resourceListsFetched(), 1u);

  clock_.step(std::chrono::seconds(6));
  ASSERT_TRUE(client_.getResourceMetric("cpu", "shop", selector("app=web"), "", kMaxAge).ok());
  EXPECT_EQ(transport_->count("GET", kShopPods), 1);
  clock_.step(std::chrono::seconds(2));  // past the window: a fresh list
  ASSERT_TRUE(client_.getResourceMetric("cpu", "shop", selector("app=web"), "", kMaxAge).ok());
  EXPECT_EQ(transport_->count("GET", kShopPods), 2);
}

TEST_F(BatchingMetricsClientTest, PodsTheCacheDoesNotKnowAreNotAnHpasPods) {
  transport_->json("GET", kShopPods,
                   json{{"kind", "PodMetricsList"},
                        {"apiVersion", "metrics.k8s.io/v1beta1"},
                        {"items", {podMetrics("web-1", "100m"), podMetrics("deleted-1", "900m")}}});
  auto web = client_.getResourceMetric("cpu", "shop", selector("app=web"), "", kMaxAge);
  ASSERT_TRUE(web.ok()) << web.error().message;
  EXPECT_EQ(web->metrics.size(), 1u);
  EXPECT_FALSE(web->metrics.contains("deleted-1"));
}

TEST_F(BatchingMetricsClientTest, NoSelectedPodWithMetricsIsUpstreamsEmptyAnswer) {
  auto none = client_.getResourceMetric("cpu", "shop", selector("app=nothing"), "", kMaxAge);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "no metrics returned from resource metrics API");
}

TEST_F(BatchingMetricsClientTest, AFailedListFailsTheHpasThatNeededItWithUpstreamsText) {
  transport_->json(
      "GET", "/apis/metrics.k8s.io/v1beta1/namespaces/other/pods",
      json{{"kind", "Status"}, {"code", 403}, {"reason", "Forbidden"}, {"message", "denied"}}, 403);
  auto failed = client_.getResourceMetric("cpu", "other", selector("app=web"), "", kMaxAge);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message, "unable to fetch metrics from resource metrics API: denied");
  auto again = client_.getResourceMetric("cpu", "other", selector("app=x"), "", kMaxAge);
  ASSERT_FALSE(again.ok());  // the same window: the same answer, not a second request
  EXPECT_EQ(transport_->count("GET", "/apis/metrics.k8s.io/v1beta1/namespaces/other/pods"), 1);
  EXPECT_TRUE(client_.getResourceMetric("cpu", "shop", selector("app=web"), "", kMaxAge)
                  .ok());  // others unaffected
}

// A failure is shared for a second, not for the caller's whole age: an API that recovers (the
// first lists after an apiserver restart fail while the metrics APIService is not yet available)
// serves the next HPAs within that second. (404, not 503: the REST client retries a 503 on the
// clock, which this test steps by hand.)
TEST_F(BatchingMetricsClientTest, AFailureIsReusedForASecondOnly) {
  const json list{{"kind", "PodMetricsList"},
                  {"apiVersion", "metrics.k8s.io/v1beta1"},
                  {"items", {podMetrics("web-1", "100m")}}};
  transport_->json("GET", kShopPods,
                   json{{"kind", "Status"},
                        {"code", 404},
                        {"message", "the server could not find the requested resource"}},
                   404);
  ASSERT_FALSE(client_.getResourceMetric("cpu", "shop", selector("app=web"), "", kMaxAge).ok());
  EXPECT_EQ(transport_->count("GET", kShopPods), 1);
  clock_.step(std::chrono::milliseconds(900));
  ASSERT_FALSE(client_.getResourceMetric("cpu", "shop", selector("app=web"), "", kMaxAge).ok());
  EXPECT_EQ(transport_->count("GET", kShopPods), 1);  // within the second: reused

  transport_->json("GET", kShopPods, list);
  clock_.step(std::chrono::milliseconds(200));
  auto recovered = client_.getResourceMetric("cpu", "shop", selector("app=web"), "", kMaxAge);
  ASSERT_TRUE(recovered.ok()) << recovered.error().message;
  EXPECT_EQ(recovered->metrics.size(), 1u);
  EXPECT_EQ(transport_->count("GET", kShopPods), 2);
  // A success is reused for the caller's whole age again.
  clock_.step(std::chrono::seconds(5));
  EXPECT_TRUE(client_.getResourceMetric("cpu", "shop", selector("app=web"), "", kMaxAge).ok());
  EXPECT_EQ(transport_->count("GET", kShopPods), 2);
}

TEST_F(BatchingMetricsClientTest, ConcurrentCallersWaitForTheOneListInFlight) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  int arrived = 0;
  const json list{{"kind", "PodMetricsList"},
                  {"apiVersion", "metrics.k8s.io/v1beta1"},
                  {"items", {podMetrics("web-1", "1")}}};
  transport_->route("GET", kShopPods, [&](const kube::HttpRequest&) {
    std::unique_lock<std::mutex> lock(mu);
    ++arrived;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
    return kube::HttpResponse{200, {}, list.dump()};
  });
  std::vector<std::thread> callers;
  std::atomic<int> ok{0};
  for (int i = 0; i < 5; ++i) {
    callers.emplace_back([&] {
      ok += client_.getResourceMetric("cpu", "shop", selector("app=web"), "", kMaxAge).ok();
    });
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return arrived == 1; }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let the others queue behind it
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
    cv.notify_all();
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(ok.load(), 5);
  EXPECT_EQ(transport_->count("GET", kShopPods), 1);
}

TEST_F(BatchingMetricsClientTest, CustomPodMetricsAreBatchedPerNamespaceAndMetric) {
  auto web = client_.getRawMetric("qps", "shop", selector("app=web"), api::Selector::everything(),
                                  kMaxAge);
  ASSERT_TRUE(web.ok()) << web.error().message;
  ASSERT_EQ(web->metrics.size(), 1u);  // db-1's value is another workload's
  EXPECT_EQ(web->metrics.at("web-1").value, 10000);
  auto db =
      client_.getRawMetric("qps", "shop", selector("app=db"), api::Selector::everything(), kMaxAge);
  ASSERT_TRUE(db.ok()) << db.error().message;
  EXPECT_EQ(db->metrics.at("db-1").value, 99000);
  EXPECT_EQ(transport_->count("GET", kShopQps), 1);
}

}  // namespace
}  // namespace hpa::metricsclient
