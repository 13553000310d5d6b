// handback's read of a live cluster, against an API server in memory: the HPA API it serves, every
// namespace or one, GETs only.
#include "handback/cluster.h"

#include <gtest/gtest.h>

#include "common/clock.h"
#include "fakes/fake_api_server.h"
#include "handback/handback.h"
#include "kube/read_only_transport.h"

namespace hpa::handback {
namespace {

using nlohmann::json;

json hpaJson(const std::string& ns, const std::string& name, json annotations) {
  return json{
      {"metadata", {{"name", name}, {"namespace", ns}, {"annotations", std::move(annotations)}}},
      {"spec", {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", name}}}, {"maxReplicas", 4}}}};
}

class HandbackCluster : public ::testing::Test {
 protected:
  HandbackCluster() {
    auto api = std::make_unique<testing::FakeApiServer>();
    api_ = api.get();
    // A 1.20 server: autoscaling/v2beta2 is the newest HPA API it serves.
    api_->serve("/api", {{"kind", "APIVersions"}, {"versions", {"v1"}}});
    api_->serve(
        "/apis",
        {{"kind", "APIGroupList"},
         {"groups",
          {{{"name", "autoscaling"},
            {"versions", {{{"groupVersion", "autoscaling/v2beta2"}, {"version", "v2beta2"}}}},
            {"preferredVersion",
             {{"groupVersion", "autoscaling/v2beta2"}, {"version", "v2beta2"}}}}}}});
    const json web = hpaJson("shop", "web", {{"hpa-controller.io/paused", "true"}});
    const json report = hpaJson("batch", "report", json::object());
    api_->serve("/apis/autoscaling/v2beta2/horizontalpodautoscalers?limit=500",
                {{"kind", "HorizontalPodAutoscalerList"},
                 {"metadata", json::object()},
                 {"items", {report, web}}});
    api_->serve(
        "/apis/autoscaling/v2beta2/namespaces/shop/horizontalpodautoscalers?limit=500",
        {{"kind", "HorizontalPodAutoscalerList"}, {"metadata", json::object()}, {"items", {web}}});
    kube::RestConfig config;
    config.server = "https://fake";
    client_ = std::make_unique<kube::RestClient>(
        config, std::make_unique<kube::ReadOnlyTransport>(std::move(api)), clock_,
        Logger::discard());
  }

  RealClock clock_;
  testing::FakeApiServer* api_ = nullptr;
  std::unique_ptr<kube::RestClient> client_;
};

TEST_F(HandbackCluster, ListsEveryNamespaceThroughTheHpaApiTheServerServes) {
  auto hpas = listClusterHpas(*client_, "");
  ASSERT_TRUE(hpas.ok()) << hpas.error().message;
  ASSERT_EQ(hpas->size(), 2u);
  const HandbackReport report = handbackReport(*hpas);
  ASSERT_EQ(report.hpas.size(), 1u);
  EXPECT_EQ(report.hpas[0].ns + "/" + report.hpas[0].name, "shop/web");
  EXPECT_EQ(report.withControlsThatStopApplying(), 1);
  for (const auto& r : api_->requests()) EXPECT_EQ(r.rfind("GET ", 0), 0u) << r;
}

TEST_F(HandbackCluster, ListsOneNamespaceWhenAsked) {
  auto hpas = listClusterHpas(*client_, "shop");
  ASSERT_TRUE(hpas.ok()) << hpas.error().message;
  ASSERT_EQ(hpas->size(), 1u);
  EXPECT_EQ(hpas->front().metadata.name, "web");
}

TEST_F(HandbackCluster, AServerWithoutTheHpaApiIsAnError) {
  api_->serve("/apis", {{"kind", "APIGroupList"}, {"groups", json::array()}});
  auto hpas = listClusterHpas(*client_, "");
  ASSERT_FALSE(hpas.ok());
  EXPECT_NE(hpas.error().message.find("cannot find the HPA API"), std::string::npos)
      << hpas.error().message;
}

}  // namespace
}  // namespace hpa::handback
