#include "adapters/cached_scale_client.h"

#include <gtest/gtest.h>

#include <thread>

#include "fakes/controller_fakes.h"
#include "fakes/eventually.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_list_watch.h"

namespace hpa::adapters {
namespace {

using nlohmann::json;

using hpa::testing::eventually;

const controller::GroupVersionResource kDeployments{"apps", "v1", "deployments"};
const controller::GroupVersionResource kWidgets{"example.com", "v1", "widgets"};

api::Scale scale(const std::string& name, int replicas) {
  api::Scale s;
  s.metadata.name = name;
  s.metadata.namespace_ = "shop";
  s.specReplicas = replicas;
  s.statusReplicas = replicas;
  s.selector = "app=" + name;
  return s;
}

class CachedScaleClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    deployments_.putObject(
        json{{"metadata", {{"name", "web"}, {"namespace", "shop"}, {"uid", "u1"}}},
             {"spec", {{"replicas", 3}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}},
             {"status", {{"replicas", 3}}}});
    api_.scales["deployments/shop/web"] = scale("web", 3);
    api_.scales["widgets/shop/w"] = scale("w", 1);
  }
  // The first read of a Deployment starts its cache; wait until it has synced.
  void warm() {
    ASSERT_TRUE(client_.getScale("shop", kDeployments, "web").ok());
    ASSERT_TRUE(eventually([&] { return caches_.hasSynced("Deployment"); }));
    api_.gets = 0;
  }

  hpa::testing::FakeClock clock_;
  hpa::testing::FakeListWatch deployments_;
  hpa::testing::FakeScaleClient api_;
  informer::WorkloadCaches caches_{
      [this](const api::BuiltinWorkload& w) -> std::unique_ptr<informer::ListerWatcher> {
        EXPECT_STREQ(w.kind, "Deployment");
        struct Borrowed final : informer::ListerWatcher {
          explicit Borrowed(informer::ListerWatcher& s) : s(s) {}
          Result<informer::ListResult> list(const informer::ListOptions& o) override {
            return s.list(o);
          }
          Result<std::unique_ptr<api::WatchStream>> watch(
              const informer::WatchOptions& o) override {
            return s.watch(o);
          }
          informer::ListerWatcher& s;
        };
        return std::make_unique<Borrowed>(deployments_);
      },
      clock_, Logger::discard()};
  CachedScaleClient client_{api_, caches_};
};

TEST_F(CachedScaleClientTest, ABuiltinWorkloadIsReadFromTheCache) {
  warm();
  for (int i = 0; i < 3; ++i) {
    auto cached = client_.getScale("shop", kDeployments, "web");
    ASSERT_TRUE(cached.ok()) << cached.error().message;
    EXPECT_EQ(cached->specReplicas, 3);
    EXPECT_EQ(cached->selector, "app=web");
    EXPECT_FALSE(cached->metadata.resourceVersion.empty());
  }
  EXPECT_EQ(api_.gets, 0);
}

TEST_F(CachedScaleClientTest, OtherKindsAndMissingTargetsAskTheApi) {
  warm();
  auto widget = client_.getScale("shop", kWidgets, "w");
  ASSERT_TRUE(widget.ok());
  EXPECT_EQ(api_.gets, 1);
  auto missing = client_.getScale("shop", kDeployments, "gone");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().httpCode, 404);  // the API server's NotFound, as upstream sees it
  EXPECT_EQ(api_.gets, 2);
}

TEST_F(CachedScaleClientTest, AFailedUpdateMakesTheNextReadLive) {
  warm();
  auto cached = client_.getScale("shop", kDeployments, "web");
  ASSERT_TRUE(cached.ok());
  api_.updateErrors.push_back(Error{"the object has been modified", 409, "Conflict"});
  api::Scale update = *cached;
  update.specReplicas = 5;
  auto put = client_.updateScale("shop", kDeployments, update);
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(api_.updates.back().metadata.resourceVersion,
            cached->metadata.resourceVersion);                      // the cached version
  ASSERT_TRUE(client_.getScale("shop", kDeployments, "web").ok());  // the conflict retry's refresh
  EXPECT_EQ(api_.gets, 1);
  ASSERT_TRUE(client_.getScale("shop", kDeployments, "web").ok());  // then the cache again
  EXPECT_EQ(api_.gets, 1);
  ASSERT_TRUE(client_.updateScale("shop", kDeployments, update).ok());
  ASSERT_TRUE(client_.getScale("shop", kDeployments, "web").ok());
  EXPECT_EQ(api_.gets, 1);  // a successful update needs no live read
}

}  // namespace
}  // namespace hpa::adapters
