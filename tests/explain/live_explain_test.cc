// Live explain against an API server in memory: what it reads (GETs only), what it decides, and
// the --save round trip (the saved snapshot, explained offline at the printed time, gives the
// same decision document).
#include <gtest/gtest.h>

#include "common/clock.h"
#include "explain/live.h"
#include "explain/render.h"
#include "explain/snapshot.h"
#include "explain/snapshot_writer.h"
#include "fakes/fake_api_server.h"
#include "kube/read_only_transport.h"

namespace hpa::explain {
namespace {

using nlohmann::json;

const char* kNow = "2026-11-23T10:00:00Z";

json podJson(const std::string& name, const std::string& app) {
  return json::parse(R"({"metadata": {"name": ")" + name +
                     R"(", "namespace": "shop", "labels": {"app": ")" + app +
                     R"("}},
    "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "200m"}}}]},
    "status": {"phase": "Running", "startTime": "2026-11-23T09:00:00Z",
               "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-23T09:00:10Z"}]}})");
}

json hpaJson(const std::string& name, const std::string& target, const json& metric,
             json annotations = json::object()) {
  return json{
      {"metadata", {{"name", name}, {"namespace", "shop"}, {"annotations", annotations}}},
      {"spec",
       {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", target}}},
        {"minReplicas", 1},
        {"maxReplicas", 10},
        {"metrics", json::array({metric})}}},
      {"status", {{"currentReplicas", 2}, {"desiredReplicas", 2}}}};
}

json scaleJson(const std::string& name, int replicas) {
  return json{{"kind", "Scale"},
              {"apiVersion", "autoscaling/v1"},
              {"metadata", {{"name", name}, {"namespace", "shop"}, {"resourceVersion", "7"}}},
              {"spec", {{"replicas", replicas}}},
              {"status", {{"replicas", replicas}, {"selector", "app=" + name}}}};
}

json notFound(const std::string& what) {
  return json{{"kind", "Status"},     {"apiVersion", "v1"},
              {"status", "Failure"},  {"message", what + " not found"},
              {"reason", "NotFound"}, {"code", 404}};
}

// A cluster like Kubernetes 1.20: HPAs in autoscaling/v2beta2; four HPAs in namespace shop.
//   web:    cpu 50 % of 200m; two pods at 150m (75 %): ratio 1.5 -> 3 replicas; history annotation
//   worker: External queue_depth without selector, AverageValue 10; series 30 + 50 -> 8
//   db:     Object metric queries of Service db with metric selector kind=read, AverageValue 10;
//           the adapter answers 30 without naming the series (selector null) -> 3
//   ghost:  its Deployment does not exist
void serveDiscovery(testing::FakeApiServer& api) {
  api.serve("/api", {{"kind", "APIVersions"}, {"versions", {"v1"}}});
  auto group = [](const std::string& name, const std::string& version) {
    return json{
        {"name", name},
        {"versions", {{{"groupVersion", name + "/" + version}, {"version", version}}}},
        {"preferredVersion", {{"groupVersion", name + "/" + version}, {"version", version}}}};
  };
  api.serve(
      "/apis",
      {{"kind", "APIGroupList"},
       {"groups",
        {group("autoscaling", "v2beta2"), group("apps", "v1"), group("metrics.k8s.io", "v1beta1"),
         group("custom.metrics.k8s.io", "v1beta2"), group("external.metrics.k8s.io", "v1beta1")}}});
  api.serve("/api/v1",
            {{"kind", "APIResourceList"},
             {"groupVersion", "v1"},
             {"resources", {{{"name", "services"}, {"kind", "Service"}, {"namespaced", true}}}}});
  api.serve("/apis/apps/v1",
            {{"kind", "APIResourceList"},
             {"groupVersion", "apps/v1"},
             {"resources",
              {{{"name", "deployments"}, {"kind", "Deployment"}, {"namespaced", true}},
               {{"name", "deployments/scale"}, {"kind", "Scale"}, {"namespaced", true}}}}});
}

void serveHpas(testing::FakeApiServer& api) {
  const json history = {
      {"apiVersion", "hpa-controller.io/v1alpha1"},
      {"kind", "AutoscalerHistory"},
      {"metadata", {{"name", "web"}}},
      {"recommendations", {{{"replicas", 2}, {"timestamp", "2026-11-23T09:58:00Z"}}}},
      {"scaleUpEvents", json::array()},
      {"scaleDownEvents", json::array()}};
  json hpas = {
      {"kind", "HorizontalPodAutoscalerList"},
      {"apiVersion", "autoscaling/v2beta2"},
      {"metadata", {{"resourceVersion", "100"}}},
      {"items",
       {hpaJson("db", "db",
                {{"type", "Object"},
                 {"object",
                  {{"describedObject", {{"apiVersion", "v1"}, {"kind", "Service"}, {"name", "db"}}},
                   {"metric",
                    {{"name", "queries"}, {"selector", {{"matchLabels", {{"kind", "read"}}}}}}},
                   {"target", {{"type", "AverageValue"}, {"averageValue", "10"}}}}}}),
        hpaJson("ghost", "ghost",
                {{"type", "Resource"},
                 {"resource",
                  {{"name", "cpu"},
                   {"target", {{"type", "Utilization"}, {"averageUtilization", 50}}}}}}),
        hpaJson("web", "web",
                {{"type", "Resource"},
                 {"resource",
                  {{"name", "cpu"},
                   {"target", {{"type", "Utilization"}, {"averageUtilization", 50}}}}}},
                {{"hpa-controller.io/history", history.dump()}}),
        hpaJson("worker", "worker",
                {{"type", "External"},
                 {"external",
                  {{"metric", {{"name", "queue_depth"}}},
                   {"target", {{"type", "AverageValue"}, {"averageValue", "10"}}}}}})}}};
  api.serve("/apis/autoscaling/v2beta2/namespaces/shop/horizontalpodautoscalers?limit=500", hpas);
}

void serveCluster(testing::FakeApiServer& api) {
  serveDiscovery(api);
  serveHpas(api);
  api.serve("/apis/apps/v1/namespaces/shop/deployments/web/scale", scaleJson("web", 2));
  api.serve("/apis/apps/v1/namespaces/shop/deployments/worker/scale", scaleJson("worker", 4));
  api.serve("/apis/apps/v1/namespaces/shop/deployments/db/scale", scaleJson("db", 1));
  api.serve("/api/v1/namespaces/shop/pods?limit=500&labelSelector=app%3Ddb",
            {{"kind", "PodList"},
             {"apiVersion", "v1"},
             {"metadata", json::object()},
             {"items", json::array()}});
  api.serve(
      "/apis/custom.metrics.k8s.io/v1beta2/namespaces/shop/services/db/"
      "queries?metricLabelSelector=kind%3Dread",
      {{"kind", "MetricValueList"},
       {"apiVersion", "custom.metrics.k8s.io/v1beta2"},
       {"metadata", json::object()},
       {"items",
        {{{"describedObject",
           {{"kind", "Service"}, {"namespace", "shop"}, {"name", "db"}, {"apiVersion", "/v1"}}},
          {"metric", {{"name", "queries"}, {"selector", nullptr}}},
          {"timestamp", "2026-11-23T09:59:50Z"},
          {"value", "30"}}}}});
  api.serve("/apis/apps/v1/namespaces/shop/deployments/ghost/scale",
            notFound("deployments/scale.apps \"ghost\""), 404);
  api.serve("/api/v1/namespaces/shop/pods?limit=500&labelSelector=app%3Dweb",
            {{"kind", "PodList"},
             {"apiVersion", "v1"},
             {"metadata", json::object()},
             {"items", {podJson("web-1", "web"), podJson("web-2", "web")}}});
  api.serve("/api/v1/namespaces/shop/pods?limit=500&labelSelector=app%3Dworker",
            {{"kind", "PodList"},
             {"apiVersion", "v1"},
             {"metadata", json::object()},
             {"items", {podJson("worker-1", "worker")}}});
  auto usage = [](const std::string& pod) {
    return json{{"metadata", {{"name", pod}, {"namespace", "shop"}, {"labels", {{"app", "web"}}}}},
                {"timestamp", "2026-11-23T09:59:45Z"},
                {"window", "30s"},
                {"containers", {{{"name", "app"}, {"usage", {{"cpu", "150m"}}}}}}};
  };
  api.serve("/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods?labelSelector=app%3Dweb",
            {{"kind", "PodMetricsList"},
             {"apiVersion", "metrics.k8s.io/v1beta1"},
             {"metadata", json::object()},
             {"items", {usage("web-1"), usage("web-2")}}});
  auto series = [](const std::string& queue, const std::string& value) {
    return json{{"metricName", "queue_depth"},
                {"metricLabels", {{"queue", queue}}},
                {"timestamp", "2026-11-23T09:59:50Z"},
                {"value", value}};
  };
  api.serve("/apis/external.metrics.k8s.io/v1beta1/namespaces/shop/queue_depth",
            {{"kind", "ExternalMetricValueList"},
             {"apiVersion", "external.metrics.k8s.io/v1beta1"},
             {"metadata", json::object()},
             {"items", {series("a", "30"), series("b", "50")}}});
}

class LiveExplain : public ::testing::Test {
 protected:
  LiveExplain() {
    auto api = std::make_unique<testing::FakeApiServer>();
    api_ = api.get();
    serveCluster(*api_);
    auto readOnly = std::make_unique<kube::ReadOnlyTransport>(std::move(api));
    reads_ = readOnly.get();
    kube::RestConfig config;
    config.server = "https://fake";
    client_ =
        std::make_unique<kube::RestClient>(config, std::move(readOnly), clock_, Logger::discard());
    options_.now = *parseRFC3339(kNow);
  }

  const json& byKey(const std::vector<Explanation>& all, const std::string& key,
                    std::vector<json>& keep) {
    for (const auto& e : all) {
      if (e.hpaKey == key) return keep.emplace_back(explanationToJson(e));
    }
    ADD_FAILURE() << "no explanation of " << key;
    return keep.emplace_back(nullptr);
  }

  RealClock clock_;
  testing::FakeApiServer* api_ = nullptr;
  kube::ReadOnlyTransport* reads_ = nullptr;
  std::unique_ptr<kube::RestClient> client_;
  ExplainOptions options_;
};

TEST_F(LiveExplain, DecidesEveryHpaOfTheNamespaceWithGetsOnly) {
  auto result = explainLive(*client_, LiveQuery{"shop", "", false}, options_);
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->explanations.size(), 4u);
  std::vector<json> keep;
  const json& web = byKey(result->explanations, "shop/web", keep);
  EXPECT_EQ(web["branch"], "metrics");
  EXPECT_EQ(web["metrics"][0]["calculation"]["utilization"], 75);
  EXPECT_EQ(web["desiredReplicas"], 3);
  EXPECT_EQ(web["rescale"], true);
  EXPECT_EQ(web["scaleUpdate"]["spec"]["replicas"], 3);
  EXPECT_EQ(web["historyGiven"], true);
  // The external metric without a selector: every series, 30 + 50 over AverageValue 10.
  const json& worker = byKey(result->explanations, "shop/worker", keep);
  EXPECT_EQ(worker["metrics"][0]["proposal"], 8) << worker["metrics"][0].dump(2);
  EXPECT_EQ(worker["desiredReplicas"], 8);
  const json& db = byKey(result->explanations, "shop/db", keep);
  EXPECT_EQ(db["metrics"][0]["proposal"], 3) << db["metrics"][0].dump(2);
  const json& ghost = byKey(result->explanations, "shop/ghost", keep);
  EXPECT_EQ(ghost["branch"], "failed-get-scale");
  EXPECT_NE(ghost["events"][0]["message"].get<std::string>().find(
                "deployments/scale.apps \"ghost\" not found"),
            std::string::npos);

  for (const auto& r : api_->requests()) EXPECT_EQ(r.rfind("GET ", 0), 0u) << r;
  ASSERT_EQ(result->histories.size(), 1u);
  EXPECT_EQ(result->histories[0].name, "web");
  EXPECT_EQ(result->histories[0].namespace_, "shop");

  const std::string table = explanationsTable(result->explanations, false);
  EXPECT_NE(table.find("web      2 -> 3"), std::string::npos) << table;
  EXPECT_NE(table.find("cpu resource utilization (percentage of request) above target"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("FailedGetScale: deployments/scale.apps \"ghost\" not found"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("external metric queue_depth "), std::string::npos) << table;
}

TEST_F(LiveExplain, SavedSnapshotReplaysTheSameDecisionOffline) {
  auto live = explainLive(*client_, LiveQuery{"shop", "", false}, options_);
  ASSERT_TRUE(live.ok()) << live.error().message;
  const std::string saved =
      writeSnapshot(reads_->responses(), live->histories, {"saved by a test"});
  auto snapshot = loadSnapshot({SnapshotSource{"saved.yaml", saved}});
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message << "\n" << saved;
  EXPECT_EQ(snapshot->hpas.size(), 4u);
  // The adapter's unnamed series is saved under the selector it answered.
  EXPECT_NE(saved.find("kind: read"), std::string::npos) << saved;
  EXPECT_EQ(snapshot->histories.size(), 1u);
  EXPECT_EQ(saved.find("APIGroupList"), std::string::npos)
      << "discovery documents are not part of a snapshot";
  for (const auto& e : live->explanations) {
    ExplainOptions offline;
    offline.now = *parseRFC3339(kNow);
    offline.hpaKey = e.hpaKey;
    auto replayed = explainSnapshot(*snapshot, offline);
    ASSERT_TRUE(replayed.ok()) << replayed.error().message;
    EXPECT_EQ(explanationToJson(*replayed), explanationToJson(e)) << e.hpaKey << "\n" << saved;
  }
}

TEST_F(LiveExplain, OneHpaByNameAgreesWithTheNamespaceRun) {
  auto one = explainLive(*client_, LiveQuery{"shop", "worker", false}, options_);
  ASSERT_TRUE(one.ok()) << one.error().message;
  ASSERT_EQ(one->explanations.size(), 1u);
  EXPECT_EQ(one->explanations[0].hpaKey, "shop/worker");
  EXPECT_TRUE(one->histories.empty());
  auto all = explainLive(*client_, LiveQuery{"shop", "", false}, options_);
  ASSERT_TRUE(all.ok());
  std::vector<json> keep;
  EXPECT_EQ(explanationToJson(one->explanations[0]), byKey(all->explanations, "shop/worker", keep));

  auto missing = explainLive(*client_, LiveQuery{"shop", "nope", false}, options_);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().httpCode, 404);
  EXPECT_NE(missing.error().message.find("\"nope\" not found"), std::string::npos)
      << missing.error().message;
}

}  // namespace
}  // namespace hpa::explain
