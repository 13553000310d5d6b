#include "adapters/cached_owner_lookup.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_list_watch.h"

namespace hpa::adapters {
namespace {

using hpa::testing::eventually;
using hpa::testing::FakeListWatch;
using nlohmann::json;

json replicaSet(const std::string& name, const json& owners) {
  return json{{"metadata", {{"name", name}, {"namespace", "shop"}, {"ownerReferences", owners}}},
              {"spec", {{"replicas", 2}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}}};
}

// Workload caches over fake list/watch sources: the ReplicaSets of "shop" (one owned by a
// Deployment, one by nothing that controls it); other kinds list nothing.
class CachedOwnerLookupTest : public ::testing::Test {
 protected:
  hpa::testing::FakeClock clock_;
  std::vector<std::string> started_;
  std::map<std::string, FakeListWatch*> sources_;
  std::deque<Error> replicaSetListErrors_;
  informer::WorkloadCaches caches_{
      [this](const api::BuiltinWorkload& w) -> std::unique_ptr<informer::ListerWatcher> {
        started_.push_back(w.kind);
        auto source = std::make_unique<FakeListWatch>();
        if (std::string(w.kind) == "ReplicaSet") {
          source->putObject(replicaSet(
              "web-5d4f",
              json::array({{{"apiVersion", "v1"}, {"kind", "Other"}, {"name", "x"}, {"uid", "u-x"}},
                           {{"apiVersion", "apps/v1"},
                            {"kind", "Deployment"},
                            {"name", "web"},
                            {"uid", "u-web"},
                            {"controller", true}}})));
          source->putObject(replicaSet(
              "orphan",
              json::array(
                  {{{"apiVersion", "v1"}, {"kind", "Other"}, {"name", "x"}, {"uid", "u-x"}}})));
          source->listErrors = replicaSetListErrors_;
        }
        sources_[w.kind] = source.get();
        return source;
      },
      clock_, Logger::discard()};
  CachedOwnerLookup owners_{caches_};
};

TEST_F(CachedOwnerLookupTest, AnswersFromTheKindsCache) {
  EXPECT_TRUE(started_.empty());  // nothing is listed before it is needed
  // The first lookup starts the ReplicaSet cache; until it has synced there is no answer.
  auto first = owners_.controllerOf("shop", "ReplicaSet", "web-5d4f");
  EXPECT_EQ(started_, std::vector<std::string>{"ReplicaSet"});
  ASSERT_TRUE(eventually([&] { return caches_.hasSynced("ReplicaSet"); }));
  if (!first.ok()) {
    EXPECT_EQ(first.error().message, "the ReplicaSet cache has not synced yet");
  }

  auto owner = owners_.controllerOf("shop", "ReplicaSet", "web-5d4f");
  ASSERT_TRUE(owner.ok()) << owner.error().message;
  ASSERT_TRUE(*owner);
  EXPECT_EQ(**owner, (api::OwnerReference{"apps/v1", "Deployment", "web", "u-web", true}));

  auto orphan = owners_.controllerOf("shop", "ReplicaSet", "orphan");  // owned, but not controlled
  ASSERT_TRUE(orphan.ok());
  EXPECT_FALSE(*orphan);
  auto absent = owners_.controllerOf("shop", "ReplicaSet", "gone");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(*absent);
  auto elsewhere = owners_.controllerOf("other", "ReplicaSet", "web-5d4f");
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_FALSE(*elsewhere);
  EXPECT_EQ(started_, std::vector<std::string>{"ReplicaSet"});
}

TEST_F(CachedOwnerLookupTest, AnUnsyncedCacheIsAnErrorNotAGuess) {
  // The listing fails; the cache backs off on the clock, which stands still.
  replicaSetListErrors_ = {Error{"etcdserver: request timed out", 500, "InternalError"}};
  auto owner = owners_.controllerOf("shop", "ReplicaSet", "web-5d4f");
  ASSERT_TRUE(eventually([&] { return clock_.waiterCount() >= 1; }));  // backing off
  owner = owners_.controllerOf("shop", "ReplicaSet", "web-5d4f");
  ASSERT_FALSE(owner.ok());
  EXPECT_EQ(owner.error().message, "the ReplicaSet cache has not synced yet");
}

TEST_F(CachedOwnerLookupTest, KindsWithoutACacheEndTheChain) {
  auto owner = owners_.controllerOf("shop", "Rollout", "web");  // a custom resource owning pods
  ASSERT_TRUE(owner.ok());
  EXPECT_FALSE(*owner);
  EXPECT_TRUE(started_.empty());
}

}  // namespace
}  // namespace hpa::adapters
