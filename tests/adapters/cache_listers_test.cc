#include "adapters/cache_listers.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "fakes/eventually.h"
#include "fakes/fake_clock.h"
#include "informer/informer.h"

namespace hpa::adapters {
namespace {

using informer::Informer;
using informer::ListerWatcher;
using informer::ListOptions;
using informer::ListResult;
using informer::WatchOptions;
using nlohmann::json;
using testing::eventually;

TEST(CacheListers, FilterByNamespaceAndSelector) {
  hpa::testing::FakeClock clock;
  struct PodSource final : ListerWatcher {
    Result<ListResult> list(const ListOptions&) override {
      ListResult r;
      for (auto [ns, name, app] :
           {std::tuple{"a", "p1", "web"}, {"a", "p2", "db"}, {"b", "p3", "web"}}) {
        r.items.push_back(
            json{{"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", app}}}}},
                 {"status", {{"phase", "Running"}}}});
      }
      r.resourceVersion = "1";
      return r;
    }
    Result<std::unique_ptr<api::WatchStream>> watch(const WatchOptions&) override {
      return Error{"not now", 500, ""};
    }
  } source;
  Informer<api::Pod> pods(
      source, api::decodePod,
      [](const api::Pod& p) { return std::make_pair(p.namespace_, p.name); }, clock,
      Logger::discard());
  informer::PodSelectorIndex index(clock);
  pods.addHandlers(index.handlers());
  pods.start();
  ASSERT_TRUE(eventually([&] { return pods.hasSynced(); }));
  CachePodLister lister(pods.cache(), index);
  auto web = lister.list("a", *api::Selector::parse("app=web"));
  ASSERT_TRUE(web.ok());
  ASSERT_EQ((*web)->size(), 1u);
  EXPECT_EQ((**web)[0]->name, "p1");
  EXPECT_EQ((*lister.list("a", api::Selector::everything()))->size(), 2u);
  EXPECT_TRUE((*lister.list("c", api::Selector::everything()))->empty());
  pods.stop();
}

}  // namespace
}  // namespace hpa::adapters
