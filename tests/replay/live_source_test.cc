#include "replay/live_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "fakes/fake_clock.h"
#include "replay/target.h"

namespace hpa::replay {
namespace {

using ::testing::HasSubstr;

// An API server answering GETs from a table; anything else is a 404.
class TableTransport final : public kube::Transport {
 public:
  explicit TableTransport(std::map<std::string, std::string> bodies) : bodies_(std::move(bodies)) {}
  Result<kube::HttpResponse> roundTrip(const kube::HttpRequest& request) override {
    requests.push_back(request.method + " " + request.pathAndQuery);
    auto it = bodies_.find(request.pathAndQuery);
    if (request.method != "GET" || it == bodies_.end()) {
      return kube::HttpResponse{
          404,
          {{"content-type", "application/json"}},
          R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"not found","reason":"NotFound","code":404})"};
    }
    return kube::HttpResponse{200, {{"content-type", "application/json"}}, it->second};
  }
  Result<std::unique_ptr<kube::ResponseStream>> openStream(const kube::HttpRequest&) override {
    return Error::of("no streams here");
  }
  std::vector<std::string> requests;

 private:
  std::map<std::string, std::string> bodies_;
};

constexpr const char* kApis = R"({"groups":[
  {"name":"autoscaling","preferredVersion":{"version":"v1"},"versions":[{"version":"v1"},{"version":"v2beta2"}]},
  {"name":"apps","preferredVersion":{"version":"v1"},"versions":[{"version":"v1"}]},
  {"name":"example.com","preferredVersion":{"version":"v1"},"versions":[{"version":"v1"}]}]})";

std::map<std::string, std::string> cluster(const std::string& targetKind,
                                           const std::string& targetApiVersion) {
  return {
      {"/api", R"({"versions":["v1"]})"},
      {"/apis", kApis},
      {"/apis/apps/v1",
       R"({"resources":[{"name":"deployments","kind":"Deployment","namespaced":true},
                                         {"name":"deployments/scale","kind":"Scale","namespaced":true}]})"},
      {"/apis/example.com/v1",
       R"({"resources":[{"name":"workers","kind":"Worker","namespaced":true},
                                               {"name":"workers/scale","kind":"Scale","namespaced":true}]})"},
      {"/apis/autoscaling/v2beta2/namespaces/demo/horizontalpodautoscalers/web",
       R"({"metadata":{"name":"web","namespace":"demo"},"spec":{"scaleTargetRef":{"apiVersion":")" +
           targetApiVersion + R"(","kind":")" + targetKind +
           R"(","name":"web"},"minReplicas":2,"maxReplicas":10,
           "metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]},
           "status":{"currentReplicas":3,"desiredReplicas":3}})"},
      {"/apis/apps/v1/namespaces/demo/deployments/web",
       R"({"metadata":{"name":"web","namespace":"demo"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
           "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]}}}})"},
      {"/apis/example.com/v1/namespaces/demo/workers/web/scale",
       R"({"metadata":{"name":"web","namespace":"demo"},"spec":{"replicas":4},"status":{"replicas":4,"selector":"app=worker"}})"},
  };
}

kube::RestConfig config() {
  kube::RestConfig c;
  c.server = "https://cluster.example";
  return c;
}

Result<explain::Snapshot> fetch(std::map<std::string, std::string> bodies, const std::string& key,
                                std::vector<std::string>* requests = nullptr) {
  testing::FakeClock clock;
  auto transport = std::make_unique<TableTransport>(std::move(bodies));
  auto* raw = transport.get();
  kube::ReadOnlyClient cluster(config(), std::move(transport), clock);
  auto sources = fetchLive(cluster, key);
  if (requests) *requests = raw->requests;
  if (!sources.ok()) return sources.error();
  return explain::loadSnapshot(*sources);
}

TEST(LiveSource, ReadsTheHpaAndItsDeployment) {
  std::vector<std::string> requests;
  auto snapshot = fetch(cluster("Deployment", "apps/v1"), "demo/web", &requests);
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message;
  ASSERT_EQ(snapshot->hpas.size(), 1u);
  EXPECT_EQ(snapshot->hpas[0].first.apiVersion, "autoscaling/v2beta2");
  EXPECT_EQ(snapshot->hpas[0].second.file,
            "https://cluster.example/apis/autoscaling/v2beta2/namespaces/demo/"
            "horizontalpodautoscalers/web");
  auto target = targetFor(snapshot->hpas[0].first, *snapshot, {});
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->scale.specReplicas, 3);
  EXPECT_EQ(target->podTemplate.containers[0].requests.get("cpu"), 200);
  for (const auto& r : requests) EXPECT_EQ(r.rfind("GET ", 0), 0u) << r;  // reads only
}

TEST(LiveSource, ReadsACustomTargetThroughItsScale) {
  auto snapshot = fetch(cluster("Worker", "example.com/v1"), "demo/web");
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message;
  ASSERT_EQ(snapshot->scales.size(), 1u);
  EXPECT_EQ(snapshot->scales[0].kind, "");
  EXPECT_EQ(snapshot->scales[0].scale.specReplicas, 4);
  EXPECT_EQ(snapshot->scales[0].scale.selector, "app=worker");
}

TEST(LiveSource, ErrorsNameWhatFailed) {
  auto missing = fetch(cluster("Deployment", "apps/v1"), "demo/api");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message,
              HasSubstr("https://cluster.example: GET "
                        "/apis/autoscaling/v2beta2/namespaces/demo/horizontalpodautoscalers/api: "
                        "not found"));
  auto noTarget = fetch(cluster("Gadget", "apps/v1"), "demo/web");
  ASSERT_FALSE(noTarget.ok());
  EXPECT_THAT(noTarget.error().message,
              HasSubstr("the HPA's target Gadget web: no matches for kind \"Gadget\""));
  EXPECT_EQ(fetch(cluster("Deployment", "apps/v1"), "web").error().message,
            "--hpa \"web\": expected namespace/name");
  EXPECT_EQ(fetch(cluster("Deployment", "apps/v1"), "demo/web/x").error().message,
            "--hpa \"demo/web/x\": expected namespace/name");
}

// Replay reads a cluster only through a read-only client: whatever asks it to write, nothing is
// sent.
TEST(LiveSource, TheClientReplayReadsWithRefusesWrites) {
  testing::FakeClock clock;
  auto transport = std::make_unique<TableTransport>(cluster("Deployment", "apps/v1"));
  auto* raw = transport.get();
  kube::ReadOnlyClient client(config(), std::move(transport), clock);
  ASSERT_TRUE(fetchLive(client, "demo/web").ok());
  const std::size_t reads = raw->requests.size();
  const nlohmann::json scale{{"spec", {{"replicas", 9}}}};
  for (const char* method : {"PUT", "PATCH", "POST", "DELETE"}) {
    auto write =
        client.client().send(method, "/apis/apps/v1/namespaces/demo/deployments/web/scale", &scale);
    ASSERT_FALSE(write.ok()) << method;
    EXPECT_EQ(write.error().reason, kube::kRefusedReadOnly) << method;
  }
  EXPECT_EQ(raw->requests.size(), reads);
}

}  // namespace
}  // namespace hpa::replay
