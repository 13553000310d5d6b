#include "informer/workload_caches.h"

#include <gtest/gtest.h>

#include <thread>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_list_watch.h"

namespace hpa::informer {
namespace {

using nlohmann::json;

using hpa::testing::eventually;

json deployment(const std::string& name, int replicas) {
  return json{{"metadata", {{"name", name}, {"namespace", "shop"}}},
              {"spec", {{"replicas", replicas}, {"selector", {{"matchLabels", {{"app", name}}}}}}},
              {"status", {{"replicas", replicas}}}};
}

class WorkloadCachesTest : public ::testing::Test {
 protected:
  // Declared before the caches, which use them until destroyed.
  hpa::testing::FakeClock clock_;
  std::vector<std::string> started_;
  std::map<std::string, hpa::testing::FakeListWatch*> sources_;
  WorkloadCaches caches_{[this](const api::BuiltinWorkload& w) -> std::unique_ptr<ListerWatcher> {
                           started_.push_back(w.resource);
                           auto source = std::make_unique<hpa::testing::FakeListWatch>();
                           sources_[w.kind] = source.get();
                           if (std::string(w.kind) == "Deployment")
                             source->putObject(deployment("web", 2));
                           return source;
                         },
                         clock_, Logger::discard()};
};

TEST_F(WorkloadCachesTest, AKindStartsOnFirstUseOnly) {
  EXPECT_TRUE(started_.empty());
  EXPECT_EQ(caches_.get("Deployment", "shop", "web"), nullptr);  // not started: nothing cached
  EXPECT_TRUE(caches_.ensure("Deployment"));
  EXPECT_TRUE(caches_.ensure("Deployment"));
  EXPECT_FALSE(caches_.ensure("Widget"));  // no cache for other kinds
  EXPECT_EQ(started_, std::vector<std::string>{"deployments"});
  ASSERT_TRUE(eventually([&] { return caches_.hasSynced("Deployment"); }));
  EXPECT_FALSE(caches_.hasSynced("StatefulSet"));
  auto web = caches_.get("Deployment", "shop", "web");
  ASSERT_NE(web, nullptr);
  EXPECT_EQ(web->specReplicas, 2);
  EXPECT_EQ(web->selector, "app=web");
  EXPECT_EQ(caches_.summaries(),
            (std::map<std::string, CacheSummary>{
                {"Deployment", {1, fnv1a32("shop/web " + web->resourceVersion)}}}));
}

TEST_F(WorkloadCachesTest, FollowsTheWatch) {
  ASSERT_TRUE(caches_.ensure("Deployment"));
  ASSERT_TRUE(eventually([&] { return caches_.hasSynced("Deployment"); }));
  ASSERT_TRUE(eventually([&] { return sources_["Deployment"]->openWatches() == 1; }));
  sources_["Deployment"]->putObject(deployment("web", 5));
  ASSERT_TRUE(eventually([&] {
    auto w = caches_.get("Deployment", "shop", "web");
    return w && w->specReplicas == 5;
  }));
  sources_["Deployment"]->removeObject("shop/web");
  ASSERT_TRUE(eventually([&] { return caches_.get("Deployment", "shop", "web") == nullptr; }));
}

}  // namespace
}  // namespace hpa::informer
