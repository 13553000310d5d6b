// The daemon's metrics path as it is wired (real transport, REST client, discovery, the REST
// metrics client behind the batching one) under the real reconcile, against a metrics adapter
// that answers one namespace with nonsense and another one well. The HPA of the broken
// namespace gets upstream's condition and events and keeps its size; the other one scales in
// the same pass; every reconcile returns.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "controller/conditions.h"
#include "controller/horizontal_controller.h"
#include "fakes/controller_fakes.h"
#include "fakes/fake_clock.h"
#include "fakes/pod_builder.h"
#include "fakes/scripted_http_server.h"
#include "kube/discovery.h"
#include "kube/rest_client.h"
#include "kube/transport.h"
#include "metricsclient/batching_metrics_client.h"
#include "metricsclient/rest/rest_metrics_client.h"

namespace hpa::adapters {
namespace {

using hpa::testing::ScriptedHttpServer;
using Connection = ScriptedHttpServer::Connection;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kSampleTime = "2026-11-23T10:00:00Z";
constexpr auto kTimeout = seconds(2);
constexpr std::size_t kMaxBytes = 1 << 20;

constexpr const char* kCoreVersions = R"({"kind":"APIVersions","versions":["v1"]})";
constexpr const char* kGroups = R"({"kind":"APIGroupList","groups":[{"name":"metrics.k8s.io",
  "versions":[{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}],
  "preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}}]})";

bool asks(const std::string& head, const std::string& path) {
  return head.rfind("GET " + path, 0) == 0;
}

// Two pods of namespace `ns` at 100m each: with 100m requests and a 50 % target, 4 replicas.
std::string busyPods(const std::string& ns, const std::string& app) {
  std::string items;
  for (int i = 0; i < 2; ++i) {
    if (i) items += ",";
    items += R"({"metadata":{"name":")" + app + "-" + std::to_string(i) + R"(","namespace":")" +
             ns + R"("},"timestamp":")" + kSampleTime +
             R"(","window":"30s","containers":[{"name":"app","usage":{"cpu":"100m"}}]})";
  }
  return R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[)" +
         items + "]}";
}

class HostileAdapterReconcile : public ::testing::Test {
 protected:
  // `broken` answers every PodMetrics request of namespace shop; namespace ok is served well.
  void serve(std::function<void(Connection&)> broken) {
    server_ = std::make_unique<ScriptedHttpServer>([broken = std::move(broken)](
                                                       const std::string& head, Connection& c) {
      if (asks(head, "/api ")) {
        c.respond(200, kCoreVersions);
      } else if (asks(head, "/apis ")) {
        c.respond(200, kGroups);
      } else if (asks(head, "/apis/metrics.k8s.io/v1beta1/namespaces/ok/pods")) {
        c.respond(200, busyPods("ok", "api"));
      } else if (asks(head, "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods")) {
        broken(c);
      } else {
        c.respond(404, R"({"kind":"Status","status":"Failure","message":"not found","code":404})");
      }
    });
    kube::RestConfig config;
    config.server = server_->url();
    config.qps = 0;
    auto transport =
        kube::makeCpprestTransport(server_->url(), {}, {kTimeout, kTimeout, kMaxBytes});
    ASSERT_TRUE(transport.ok());
    rest_ = std::make_unique<kube::RestClient>(config, std::move(*transport), restClock_,
                                               Logger::discard());
    discovery_ = std::make_unique<kube::Discovery>(*rest_);
    api_ = std::make_unique<metricsclient::RestMetricsClient>(*rest_, *discovery_);
    metrics_ = std::make_unique<metricsclient::BatchingMetricsClient>(
        *api_,
        [this](const std::string& ns, const std::string& name) -> std::optional<api::Labels> {
          auto pods = pods_.list(ns, api::Selector::everything());
          for (const auto& p : **pods) {
            if (p->name == name) return p->labels;
          }
          return std::nullopt;
        },
        clock_, seconds(7));
    addHpa("shop", "web");
    addHpa("ok", "api");
    controller_ = std::make_unique<controller::HorizontalController>(
        controller::ControllerDependencies{hpas_, pods_, *metrics_, scales_, status_, events_,
                                           clock_, Logger::discard(), nullptr, &owners_},
        controller::ControllerOptions{});
    controller_->hpaAdded("shop/web");
    controller_->hpaAdded("ok/api");
  }

  void addHpa(const std::string& ns, const std::string& app) {
    api::HorizontalPodAutoscaler hpa;
    hpa.metadata.name = app;
    hpa.metadata.namespace_ = ns;
    hpa.metadata.uid = "uid-" + app;
    hpa.spec.scaleTargetRef = {"Deployment", app, "apps/v1"};
    hpa.spec.minReplicas = 1;
    hpa.spec.maxReplicas = 10;
    api::MetricSpec cpu;
    cpu.source =
        api::ResourceMetricSource{"cpu", api::MetricTarget{api::kUtilizationTarget, {}, {}, 50}};
    hpa.spec.metrics = {cpu};
    hpas_.put(hpa);
    const Time start = clock_.now() - std::chrono::hours(1);
    for (int i = 0; i < 2; ++i) {
      pods_.add(hpa::testing::PodBuilder(app + "-" + std::to_string(i), ns)
                    .label("app", app)
                    .startTime(start)
                    .ready("True", start + seconds(5))
                    .container("app", 100)
                    .build());
    }
    api::Scale scale;
    scale.metadata.name = app;
    scale.metadata.namespace_ = ns;
    scale.specReplicas = 2;
    scale.statusReplicas = 2;
    scale.selector = "app=" + app;
    scales_.scales["deployments/" + ns + "/" + app] = scale;
  }

  // Reconciles the broken namespace's HPA, then the healthy one, and checks both outcomes.
  void expectOnlyShopFails(const std::string& errorText) {
    controller_->reconcileKey("shop/web");
    const std::size_t shopEvents = events_.events.size();
    controller_->reconcileKey("ok/api");

    ASSERT_EQ(status_.writes.size(), 2u);
    const auto& shop = status_.writes[0];
    ASSERT_EQ(shop.metadata.name, "web");
    const auto* active = condition(shop, "ScalingActive");
    ASSERT_NE(active, nullptr);
    EXPECT_EQ(active->status, "False");
    EXPECT_EQ(active->reason, "FailedGetResourceMetric");
    EXPECT_NE(active->message.find(errorText), std::string::npos) << active->message;
    EXPECT_EQ(shop.status.currentReplicas, 2);
    ASSERT_EQ(shopEvents, 2u);
    EXPECT_EQ(events_.events[0].reason, "FailedGetResourceMetric");
    EXPECT_EQ(events_.events[1].reason, "FailedComputeMetricsReplicas");

    const auto& ok = status_.writes[1];
    ASSERT_EQ(ok.metadata.name, "api");
    EXPECT_EQ(condition(ok, "ScalingActive")->status, "True");
    EXPECT_EQ(ok.status.desiredReplicas, 4);
    ASSERT_EQ(scales_.updates.size(), 1u) << "only the healthy namespace's HPA scales";
    EXPECT_EQ(scales_.updates[0].metadata.name, "api");
    EXPECT_EQ(scales_.updates[0].specReplicas, 4);
  }

  static const api::HorizontalPodAutoscalerCondition* condition(
      const api::HorizontalPodAutoscaler& hpa, const std::string& type) {
    return api::findCondition(hpa.status, type);
  }

  // The reconcile's time, 20 s after the samples; the REST client's retries wait in real time.
  hpa::testing::FakeClock clock_{*parseRFC3339("2026-11-23T10:00:20Z")};
  RealClock restClock_;
  std::unique_ptr<ScriptedHttpServer> server_;
  std::unique_ptr<kube::RestClient> rest_;
  std::unique_ptr<kube::Discovery> discovery_;
  std::unique_ptr<metricsclient::RestMetricsClient> api_;
  std::unique_ptr<metricsclient::BatchingMetricsClient> metrics_;
  hpa::testing::FakeHpaLister hpas_;
  hpa::testing::FakePodLister pods_;
  hpa::testing::FakeOwnerLookup owners_;
  hpa::testing::FakeScaleClient scales_;
  hpa::testing::FakeStatusWriter status_;
  hpa::testing::FakeEventRecorder events_;
  std::unique_ptr<controller::HorizontalController> controller_;
};

TEST_F(HostileAdapterReconcile, TruncatedJson) {
  serve([](Connection& c) { c.respond(200, R"({"kind":"PodMetricsList","items":[{"me)"); });
  expectOnlyShopFails("unable to get metrics for resource cpu");
}

TEST_F(HostileAdapterReconcile, WrongKind) {
  serve([](Connection& c) {
    c.respond(200, R"({"kind":"PodList","apiVersion":"v1","metadata":{},"items":[]})");
  });
  expectOnlyShopFails("PodList");
}

TEST_F(HostileAdapterReconcile, NotANumberQuantity) {
  serve([](Connection& c) {
    c.respond(
        200,
        R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},"items":[
      {"metadata":{"name":"web-0","namespace":"shop"},"timestamp":"2026-11-23T10:00:00Z","window":"30s",
       "containers":[{"name":"app","usage":{"cpu":"NaN"}}]}]})");
  });
  expectOnlyShopFails("unable to fetch metrics from resource metrics API");
}

TEST_F(HostileAdapterReconcile, TenMegabyteBody) {
  const std::string big(10 << 20, ' ');
  serve([&big](Connection& c) { c.respond(200, "[" + big + "]"); });
  expectOnlyShopFails("exceeds 1048576 bytes");
}

TEST_F(HostileAdapterReconcile, BodyDrippingForever) {
  serve([](Connection& c) {
    if (!c.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                 "1000000\r\n\r\n["))
      return;
    while (c.write(" ") && c.pause(milliseconds(100))) {
    }
    c.hangUp();
  });
  expectOnlyShopFails("no complete answer within 2s");
}

TEST_F(HostileAdapterReconcile, ServerErrorStorm) {
  serve([](Connection& c) {
    c.respond(500, R"({"kind":"Status","status":"Failure","message":"adapter down","code":500})");
  });
  expectOnlyShopFails("adapter down");
}

TEST_F(HostileAdapterReconcile, TooManyRequestsStorm) {
  serve([](Connection& c) {
    c.respond(
        429,
        R"({"kind":"Status","status":"Failure","message":"slow down","reason":"TooManyRequests","code":429})",
        "Retry-After: 0\r\n");
  });
  expectOnlyShopFails("slow down");
}

}  // namespace
}  // namespace hpa::adapters
