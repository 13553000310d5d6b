// The selector index of the pod cache: what a scan of the namespace would find, kept by events.

#include "informer/pod_selector_index.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "fakes/fake_clock.h"
#include "fakes/pod_builder.h"

namespace hpa::informer {
namespace {

using hpa::testing::PodBuilder;
using Ptr = std::shared_ptr<const api::Pod>;

// A pod cache updated as the informer does it: the cache first, then the handlers.
class IndexedPods {
 public:
  IndexedPods() : handlers_(index.handlers()) {}
  void put(api::Pod pod) {
    auto p = std::make_shared<const api::Pod>(std::move(pod));
    Ptr old = cache.put(p->namespace_, p->namespace_ + "/" + p->name, p);
    if (old) {
      handlers_.onUpdate(old, p);
    } else {
      handlers_.onAdd(p);
    }
  }
  void remove(const std::string& ns, const std::string& name) {
    if (Ptr old = cache.remove(ns, ns + "/" + name)) handlers_.onDelete(old);
  }
  std::vector<std::string> names(const std::string& ns, const char* selector) {
    std::vector<std::string> out;
    for (const auto& p : *index.list(ns, *api::Selector::parse(selector), cache))
      out.push_back(p->name);
    return out;
  }
  // What the lister did before the index: every pod of the namespace, matched one by one.
  std::vector<std::string> scanned(const std::string& ns, const char* selector) const {
    std::vector<std::string> out;
    const auto s = *api::Selector::parse(selector);
    for (const auto& p : cache.list(ns)) {
      if (s.matches(p->labels)) out.push_back(p->name);
    }
    return out;
  }

  hpa::testing::FakeClock clock;
  ObjectCache<api::Pod> cache;
  PodSelectorIndex index{clock};

 private:
  EventHandlers<api::Pod> handlers_;
};

using Names = std::vector<std::string>;

TEST(PodSelectorIndex, FollowsAddsLabelChangesAndDeletesAfterTheFirstScan) {
  IndexedPods w;
  w.put(PodBuilder("web-b").label("app", "web").build());
  w.put(PodBuilder("db-a").label("app", "db").build());
  w.put(PodBuilder("web-x", "other").label("app", "web").build());
  EXPECT_EQ(w.names("default", "app=web"), Names{"web-b"});
  EXPECT_EQ(w.index.selectorCount(), 1u);

  w.put(PodBuilder("web-a").label("app", "web").build());
  EXPECT_EQ(w.names("default", "app=web"), (Names{"web-a", "web-b"}))
      << "in name order, as the scan";
  w.put(PodBuilder("web-b").label("app", "web-canary").build());  // relabelled: leaves
  EXPECT_EQ(w.names("default", "app=web"), Names{"web-a"});
  w.put(PodBuilder("db-a").label("app", "web").build());  // relabelled: joins
  EXPECT_EQ(w.names("default", "app=web"), (Names{"db-a", "web-a"}));
  w.remove("default", "web-a");
  EXPECT_EQ(w.names("default", "app=web"), Names{"db-a"});
  EXPECT_EQ(w.names("other", "app=web"), Names{"web-x"});
  EXPECT_EQ(w.index.selectorCount(), 2u);
}

TEST(PodSelectorIndex, HandsOutTheLatestObjectOfAPod) {
  IndexedPods w;
  w.put(PodBuilder("web-a").label("app", "web").phase("Pending").build());
  ASSERT_EQ((*w.index.list("default", *api::Selector::parse("app=web"), w.cache))[0]->phase,
            "Pending");
  w.put(PodBuilder("web-a").label("app", "web").phase("Running").build());
  EXPECT_EQ((*w.index.list("default", *api::Selector::parse("app=web"), w.cache))[0]->phase,
            "Running");
}

TEST(PodSelectorIndex, AListHeldByAReaderDoesNotChangeUnderIt) {
  IndexedPods w;
  const auto web = *api::Selector::parse("app=web");
  w.put(PodBuilder("web-a").label("app", "web").phase("Pending").build());
  w.put(PodBuilder("web-c").label("app", "web").build());
  const api::SharedPods held = w.index.list("default", web, w.cache);
  EXPECT_EQ(w.index.list("default", web, w.cache), held)
      << "readers share one list while nothing changes";

  w.put(PodBuilder("web-a").label("app", "web").phase("Running").build());
  w.put(PodBuilder("web-b").label("app", "web").build());
  w.remove("default", "web-c");
  ASSERT_EQ(held->size(), 2u);
  EXPECT_EQ((*held)[0]->phase, "Pending");
  EXPECT_EQ((*held)[1]->name, "web-c");
  EXPECT_EQ(w.names("default", "app=web"), (Names{"web-a", "web-b"}));
  EXPECT_EQ((*w.index.list("default", web, w.cache))[0]->phase, "Running");
}

TEST(PodSelectorIndex, EverythingAndNothing) {
  IndexedPods w;
  w.put(PodBuilder("a").label("app", "web").build());
  w.put(PodBuilder("b").build());
  EXPECT_EQ(w.names("default", ""), (Names{"a", "b"}));
  EXPECT_TRUE(w.index.list("default", api::Selector::nothing(), w.cache)->empty());
  w.put(PodBuilder("c").build());
  EXPECT_EQ(w.names("default", ""), (Names{"a", "b", "c"}));
}

TEST(PodSelectorIndex, SelectorsNobodyAsksForAreDropped) {
  IndexedPods w;
  w.put(PodBuilder("web-a").label("app", "web").build());
  w.names("default", "app=web");
  w.names("default", "app=db");
  w.clock.step(std::chrono::minutes(90));
  w.names("default", "app=web");
  w.clock.step(std::chrono::minutes(31));
  w.put(PodBuilder("web-b").label("app", "web").build());  // any event lets the index tidy up
  EXPECT_EQ(w.index.selectorCount(), 1u) << "app=db was idle for two hours";
  EXPECT_EQ(w.names("default", "app=web"), (Names{"web-a", "web-b"}));
  EXPECT_EQ(w.names("default", "app=db"), Names{}) << "asked again: indexed again";
  EXPECT_EQ(w.index.selectorCount(), 2u);
}

// Events from the informer's thread while workers read: at the end, every selector gives what a
// scan gives.
TEST(PodSelectorIndex, AgreesWithAScanUnderConcurrentEventsAndReads) {
  IndexedPods w;
  const std::vector<std::string> apps = {"web", "db", "cache", "queue"};
  std::atomic<bool> done{false};
  std::thread events([&] {
    std::mt19937 rng(7);
    for (int i = 0; i < 4000; ++i) {
      const std::string name = "pod-" + std::to_string(rng() % 200);
      const std::string ns = rng() % 2 ? "a" : "b";
      if (rng() % 5 == 0) {
        w.remove(ns, name);
      } else {
        w.put(PodBuilder(name, ns)
                  .label("app", apps[rng() % apps.size()])
                  .label("tier", rng() % 2 ? "x" : "y")
                  .build());
      }
    }
    done = true;
  });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      const char* selectors[] = {"app=web", "app in (db,cache),tier=x", "app!=queue", "tier=y"};
      while (!done) {
        for (const char* s : selectors)
          w.index.list(r ? "a" : "b", *api::Selector::parse(s), w.cache);
      }
    });
  }
  events.join();
  for (auto& t : readers) t.join();
  for (const char* ns : {"a", "b"}) {
    for (const char* s : {"app=web", "app in (db,cache),tier=x", "app!=queue", "tier=y"}) {
      EXPECT_EQ(w.names(ns, s), w.scanned(ns, s)) << ns << " " << s;
    }
  }
}

}  // namespace
}  // namespace hpa::informer
