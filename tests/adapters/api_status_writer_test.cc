#include <gtest/gtest.h>

#include "adapters/api_clients.h"
#include "api/codec.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_transport.h"

namespace hpa::adapters {
namespace {

using nlohmann::json;

constexpr const char* kStatusPath =
    "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/web/status";

api::HorizontalPodAutoscaler cachedHpa() {
  api::HorizontalPodAutoscaler hpa;
  hpa.metadata.name = "web";
  hpa.metadata.namespace_ = "shop";
  hpa.metadata.resourceVersion = "41";
  hpa.spec.scaleTargetRef = {"Deployment", "web", "apps/v1"};
  hpa.spec.maxReplicas = 5;
  hpa.status.currentReplicas = 2;
  hpa.status.desiredReplicas = 3;
  return hpa;
}

// The server's copy has metadata the cache does not keep; the writer must not send any of it.
json storedObject() {
  return json::parse(R"({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "web", "namespace": "shop", "resourceVersion": "41",
                 "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u"}],
                 "finalizers": ["example.com/keep"], "labels": {"team": "shop"}},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5},
    "status": {"currentReplicas": 2, "desiredReplicas": 2, "lastScaleTime": "2024-05-01T12:00:05Z"}})");
}

TEST(ApiStatusWriter, MergePatchesTheStatusUnderTheCachedResourceVersion) {
  testing::FakeClock clock;
  testing::FakeTransport* transport = nullptr;
  auto client = testing::fakeRestClient(transport, clock);
  json stored = storedObject();
  transport->route("PATCH", kStatusPath, [&](const kube::HttpRequest& r) {
    EXPECT_EQ(r.contentType, "application/merge-patch+json");
    const json patch = json::parse(r.body);
    if (patch.at("metadata").at("resourceVersion") != stored["metadata"]["resourceVersion"]) {
      return kube::HttpResponse{
          409, {}, R"({"kind": "Status", "code": 409, "reason": "Conflict"})"};
    }
    stored.merge_patch(patch);
    stored["metadata"]["resourceVersion"] = "42";
    return kube::HttpResponse{200, {{"content-type", "application/json"}}, stored.dump()};
  });
  controller::StalenessGuard written;
  ApiStatusWriter writer(*client, "autoscaling/v2", &written);

  auto result = writer.updateStatus(cachedHpa());
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->status.desiredReplicas, 3);
  EXPECT_FALSE(result->status.lastScaleTime) << "a field the new status lacks is removed";
  EXPECT_EQ(stored["metadata"]["finalizers"], json::array({"example.com/keep"}));
  EXPECT_EQ(stored["metadata"]["ownerReferences"].size(), 1u);
  EXPECT_EQ(stored["metadata"]["labels"]["team"], "shop");
  EXPECT_EQ(written.staleAgainst("shop/web", "41"), std::optional<std::string>("42"));

  // A write from a stale cache is refused, as upstream's UpdateStatus is.
  auto stale = writer.updateStatus(cachedHpa());
  ASSERT_FALSE(stale.ok());
  EXPECT_NE(stale.error().message.find("409"), std::string::npos) << stale.error().message;
  EXPECT_EQ(transport->count("PUT", kStatusPath), 0);
}

}  // namespace
}  // namespace hpa::adapters
