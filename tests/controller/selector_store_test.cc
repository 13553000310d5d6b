// The ambiguous-selector check's store: which HPAs of a namespace select any of a set of pods, the
// same answer whether it was remembered or worked out again after a selector changed.

#include "controller/selector_store.h"

#include <gtest/gtest.h>

#include "fakes/pod_builder.h"

namespace hpa::controller {
namespace {

using hpa::testing::PodBuilder;
using Keys = std::vector<std::string>;

api::Selector selector(const char* text) { return *api::Selector::parse(text); }

class SelectorStoreTest : public ::testing::Test {
 protected:
  Keys selecting(const std::vector<api::Pod>& pods, const std::string& ns = "default") {
    std::vector<const api::Pod*> pointers;
    pointers.reserve(pods.size());
    for (const auto& p : pods) pointers.push_back(&p);
    return store.hpasSelectingAny(ns, pointers, 2);
  }
  SelectorStore store;
  std::vector<api::Pod> web{PodBuilder("web-1").label("app", "web").build(),
                            PodBuilder("web-2").label("app", "web").build()};
};

TEST_F(SelectorStoreTest, AnswersFollowEveryChangeOfTheNamespacesSelectors) {
  store.registerHpa("default/web");
  EXPECT_EQ(selecting(web), Keys{}) << "registered but never reconciled: selects nothing";
  ASSERT_TRUE(store.update("default/web", selector("app=web")));
  EXPECT_EQ(selecting(web), Keys{"default/web"});
  EXPECT_EQ(selecting(web), Keys{"default/web"}) << "asked again: the same answer";

  store.registerHpa("default/all");
  ASSERT_TRUE(store.update("default/all", selector("")));
  EXPECT_EQ(selecting(web), (Keys{"default/all", "default/web"})) << "a new selector overlaps";
  ASSERT_TRUE(store.update("default/all", selector("app=db")));
  EXPECT_EQ(selecting(web), Keys{"default/web"}) << "retargeted away";
  store.remove("default/web");
  EXPECT_EQ(selecting(web), Keys{});
  EXPECT_FALSE(store.update("default/web", selector("app=web"))) << "deleted";
  EXPECT_EQ(selecting(web, "other"), Keys{});
}

TEST_F(SelectorStoreTest, AnswersDependOnThePodsLabelSets) {
  store.registerHpa("default/web");
  store.registerHpa("default/canary");
  ASSERT_TRUE(store.update("default/web", selector("app=web")));
  ASSERT_TRUE(store.update("default/canary", selector("app=web,track=canary")));
  EXPECT_EQ(selecting(web), Keys{"default/web"});
  auto withCanary = web;
  withCanary.push_back(PodBuilder("web-3").label("app", "web").label("track", "canary").build());
  EXPECT_EQ(selecting(withCanary), (Keys{"default/canary", "default/web"}));
  EXPECT_EQ(selecting(web), Keys{"default/web"});
  EXPECT_EQ(selecting({PodBuilder("db-1").label("app", "db").build()}), Keys{});
}

TEST_F(SelectorStoreTest, PodsWhoseLabelsKeepChangingDoNotGrowItsMemoryWithoutBound) {
  store.registerHpa("default/web");
  ASSERT_TRUE(store.update("default/web", selector("app=web")));
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(
        selecting(
            {PodBuilder("web-1").label("app", "web").label("rev", std::to_string(i)).build()}),
        Keys{"default/web"});
  }
  EXPECT_EQ(store.size(), 1u);
}

}  // namespace
}  // namespace hpa::controller
