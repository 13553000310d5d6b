#include "sim/pod_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hpa::sim {
namespace {

api::Selector sel(const char* text) { return *api::Selector::parse(text); }

SimPod pod(const std::string& ns, const std::string& name, api::Labels labels, bool ready = true) {
  return SimPod{ns, name, std::move(labels), ready, {"app"}};
}

std::vector<std::string> names(const std::vector<PodView>& views) {
  std::vector<std::string> out;
  for (const auto& v : views) out.push_back(v.pod->name);
  return out;
}

// Workload i of a namespace is the pods labelled app=w-i.
int workloadOfApp(const std::string&, const api::Labels& labels) {
  auto app = labels.get("app");
  if (!app || app->rfind("w-", 0) != 0) return -1;
  return std::stoi(std::string(app->substr(2)));
}

// 3 namespaces x 100 workloads x 2 pods.
void fill(PodIndex& index) {
  for (int n = 0; n < 3; ++n) {
    for (int w = 0; w < 100; ++w) {
      for (int p = 0; p < 2; ++p) {
        const std::string app = "w-" + std::to_string(w);
        index.upsert(pod("ns-" + std::to_string(n), app + "-" + std::to_string(p),
                         {{"app", app}, {"tier", "web"}}));
      }
    }
  }
}

TEST(PodIndex, EqualitySelectorLooksOnlyAtItsPods) {
  PodIndex index(workloadOfApp);
  fill(index);
  size_t examined = 0;
  auto got = index.select("ns-1", sel("app=w-42"), &examined);
  EXPECT_EQ(names(got), (std::vector<std::string>{"w-42-0", "w-42-1"}));
  EXPECT_EQ(examined, 2u);
  for (const auto& v : got) EXPECT_EQ(v.pod->namespace_, "ns-1");
  // The narrowest requirement decides; the others still filter.
  got = index.select("ns-1", sel("tier=web,app=w-7"), &examined);
  EXPECT_EQ(names(got), (std::vector<std::string>{"w-7-0", "w-7-1"}));
  EXPECT_EQ(examined, 2u);
  EXPECT_TRUE(index.select("ns-1", sel("app=w-7,tier=db"), &examined).empty());
  EXPECT_EQ(examined, 0u);  // tier=db has no pods: nothing to look at
}

TEST(PodIndex, NamespaceListingCostsTheNamespace) {
  PodIndex index(workloadOfApp);
  fill(index);
  size_t examined = 0;
  EXPECT_EQ(index.select("ns-2", api::Selector::everything(), &examined).size(), 200u);
  EXPECT_EQ(examined, 200u);
  EXPECT_TRUE(index.select("elsewhere", api::Selector::everything(), &examined).empty());
  EXPECT_TRUE(index.select("ns-2", api::Selector::nothing(), &examined).empty());
  EXPECT_EQ(examined, 0u);
}

TEST(PodIndex, InSelectorMergesInNameOrder) {
  PodIndex index(workloadOfApp);
  fill(index);
  size_t examined = 0;
  auto got = index.select("ns-0", sel("app in (w-9,w-10,w-missing)"), &examined);
  EXPECT_EQ(names(got), (std::vector<std::string>{"w-10-0", "w-10-1", "w-9-0", "w-9-1"}));
  EXPECT_EQ(examined, 4u);
}

TEST(PodIndex, SetBasedSelectorsWithoutValuesScanTheNamespace) {
  PodIndex index;
  index.upsert(pod("a", "p1", {{"app", "web"}, {"canary", "true"}}));
  index.upsert(pod("a", "p2", {{"app", "web"}, {"track", "stable"}}));
  index.upsert(pod("a", "p3", {{"app", "db"}}));
  index.upsert(pod("b", "p4", {{"app", "web"}}));
  EXPECT_EQ(names(index.select("a", sel("!canary"))), (std::vector<std::string>{"p2", "p3"}));
  EXPECT_EQ(names(index.select("a", sel("app!=db"))), (std::vector<std::string>{"p1", "p2"}));
  EXPECT_EQ(names(index.select("a", sel("track"))), (std::vector<std::string>{"p2"}));
  EXPECT_EQ(names(index.select("a", sel("app notin (web)"))), (std::vector<std::string>{"p3"}));
}

TEST(PodIndex, ChangedLabelsMoveThePodAndItsWorkload) {
  int classified = 0;
  PodIndex index([&](const std::string& ns, const api::Labels& labels) {
    ++classified;
    return workloadOfApp(ns, labels);
  });
  index.upsert(pod("a", "p", {{"app", "w-1"}}));
  index.upsert(pod("a", "p", {{"app", "w-1"}}, false));  // same labels: not classified again
  EXPECT_EQ(classified, 1);
  EXPECT_EQ(index.workloadCount(1).pods, 1);
  EXPECT_EQ(index.workloadCount(1).ready, 0);

  index.upsert(pod("a", "p", {{"app", "w-2"}}));
  EXPECT_EQ(classified, 2);
  EXPECT_TRUE(index.select("a", sel("app=w-1")).empty());
  EXPECT_EQ(names(index.select("a", sel("app=w-2"))), std::vector<std::string>{"p"});
  EXPECT_EQ(index.workloadCount(1).pods, 0);
  EXPECT_EQ(index.workloadCount(2).pods, 1);
  EXPECT_EQ(index.workloadCount(2).ready, 1);
  EXPECT_EQ(index.totals().pods, 1);
}

TEST(PodIndex, ReadyCountsFollowReadinessAndRemoval) {
  PodIndex index(workloadOfApp);
  index.upsert(pod("a", "p1", {{"app", "w-0"}}, true));
  index.upsert(pod("a", "p2", {{"app", "w-0"}}, false));
  index.upsert(pod("a", "p3", {{"app", "w-0"}}, true));
  index.upsert(pod("a", "other", {{"app", "db"}}, true));
  auto views = index.select("a", sel("app=w-0"));
  ASSERT_EQ(views.size(), 3u);
  for (const auto& v : views) {
    EXPECT_EQ(v.workload, 0);
    EXPECT_EQ(v.workloadReady, 2);
  }
  EXPECT_EQ(index.get("a", "other")->workload, -1);

  index.upsert(pod("a", "p2", {{"app", "w-0"}}, true));
  EXPECT_EQ(index.workloadCount(0).ready, 3);
  index.remove("a", "p1");
  index.remove("a", "p1");        // twice: ignored
  index.remove("zz", "nothing");  // unknown: ignored
  EXPECT_EQ(index.workloadCount(0).pods, 2);
  EXPECT_EQ(index.workloadCount(0).ready, 2);
  EXPECT_FALSE(index.get("a", "p1"));
  EXPECT_EQ(index.get("a", "p2")->workloadReady, 2);
  EXPECT_EQ(index.totals().pods, 3);
  EXPECT_EQ(index.totals().ready, 3);
  auto counts = index.workloadCounts(3);
  ASSERT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts[0].pods, 2);
  EXPECT_EQ(counts[2].pods, 0);
  EXPECT_EQ(index.workloadCount(-1).pods, 0);
}

}  // namespace
}  // namespace hpa::sim
