// The indexed selection of a namespace's PodMetrics list against the plain rule it replaces
// (selectPodMetrics with the pod cache's labels): random lists, caches and selectors.

#include "metricsclient/indexed_pod_metrics.h"

#include <gtest/gtest.h>

#include <random>

#include "fakes/pod_builder.h"
#include "metricsclient/conversions.h"

namespace hpa::metricsclient {
namespace {

struct World {
  api::PodMetricsList list;
  std::map<std::string, std::shared_ptr<const api::Pod>> cache;  // by name, namespace "shop"
};

World randomWorld(std::mt19937& rng) {
  const std::vector<std::string> apps = {"web", "db", "cache"};
  World w;
  const int pods = 1 + static_cast<int>(rng() % 60);
  for (int i = 0; i < pods; ++i) {
    const std::string name = "p" + std::to_string(rng() % 80);  // names may repeat: a hostile list
    const std::string app = apps[rng() % apps.size()];
    api::PodMetrics m;
    m.metadata.name = name;
    m.metadata.namespace_ = rng() % 10 == 0 ? "" : rng() % 10 == 0 ? "other" : "shop";
    if (rng() % 2) {  // labels of its own, as metrics-server copies them
      m.metadata.labels = {{"app", app}};
      if (rng() % 2) m.metadata.labels["tier"] = rng() % 2 ? "a" : "b";
    }
    m.timestamp = Time(std::chrono::seconds(1000 + rng() % 5));
    m.window = std::chrono::seconds(15 + rng() % 3);
    // Containers with some of the resources (a pod lacking one in a container is left out of that
    // resource's samples), names repeating as a hostile adapter may send them.
    const std::vector<std::string> containerNames = {"app", "side"};
    const std::vector<std::string> resources = {"cpu", "memory", "gpu"};
    const int containers = static_cast<int>(rng() % 4);
    for (int c = 0; c < containers; ++c) {
      api::ContainerMetrics cm;
      cm.name = containerNames[rng() % containerNames.size()];
      for (const auto& r : resources) {
        if (rng() % 4)
          cm.usage[r] = api::Quantity::fromMilli(static_cast<std::int64_t>(rng() % 2000));
      }
      m.containers.push_back(cm);
    }
    w.list.items.push_back(m);
    if (rng() % 3) {  // the cache knows the pod, maybe with other labels than the item's
      auto b = hpa::testing::PodBuilder(name, "shop")
                   .label("app", rng() % 4 ? app : apps[rng() % apps.size()]);
      if (rng() % 2) b.label("tier", rng() % 2 ? "a" : "b");
      w.cache[name] = std::make_shared<const api::Pod>(b.build());
    }
  }
  return w;
}

// The pod cache's labels of a pod (an unknown pod is unlabelled), as the batching client asks.
PodLabelsLookup labelsIn(const World& w) {
  return [&w](const std::string& name) -> std::optional<api::Labels> {
    auto it = w.cache.find(name);
    return it == w.cache.end() ? api::Labels() : it->second->labels;
  };
}

// The cache's pods of a selector, as its selector index lists them (namespace "shop" only).
IndexedPodMetrics::PodsOfSelector podsIn(const World& w) {
  return [&w](const std::string& ns, const api::Selector& s) {
    auto out = std::make_shared<std::vector<std::shared_ptr<const api::Pod>>>();
    if (ns != "shop") return api::SharedPods(std::move(out));
    for (const auto& [name, pod] : w.cache) {
      if (s.matches(pod->labels)) out->push_back(pod);
    }
    return api::SharedPods(std::move(out));
  };
}

std::vector<std::string> names(const std::vector<const api::PodMetrics*>& items) {
  std::vector<std::string> out;
  for (const auto* m : items) out.push_back(m->metadata.namespace_ + "/" + m->metadata.name);
  return out;
}

TEST(IndexedPodMetrics, SelectsWhatThePlainRuleSelects) {
  const std::vector<std::string> selectors = {"",
                                              "app=web",
                                              "app==db",
                                              "app in (web,cache)",
                                              "app=web,tier=a",
                                              "tier",
                                              "tier=b,app!=db",
                                              "app!=web",
                                              "app notin (web)",
                                              "!tier",
                                              "app=nobody",
                                              "app in (db),tier in (a,b)",
                                              "bad selector ("};
  std::mt19937 rng(11);
  int nonEmpty = 0;
  for (int round = 0; round < 300; ++round) {
    World w = randomWorld(rng);
    const PodLabelsLookup labels = labelsIn(w);
    const IndexedPodMetrics::PodsOfSelector podsOf = podsIn(w);
    IndexedPodMetrics indexed(std::move(w.list), "shop");
    const auto& items = indexed.list().items;
    for (const auto& s : selectors) {
      const ResourceMetricsRequest request{"shop", s};
      auto want = selectPodMetricsIn(request, items, labels);
      auto got = indexed.select(request, podsOf, labels);
      ASSERT_EQ(got.ok(), want.ok()) << s;
      if (!want.ok()) {
        EXPECT_EQ(got.error().message, want.error().message);
        continue;
      }
      EXPECT_EQ(names(*got), names(*want)) << "selector " << s << " in round " << round;
      EXPECT_EQ(*got, *want);
      nonEmpty += !want->empty();
    }
  }
  EXPECT_GT(nonEmpty, 1000);
}

// The samples built from the compact records are the conversion of the selected items, for every
// resource (recorded or not) and container choice.
TEST(IndexedPodMetrics, ResourceMetricsAreTheConversionOfTheSelection) {
  const std::vector<std::string> selectors = {
      "", "app=web", "app in (web,cache)", "tier", "app!=web", "app=nobody", "bad selector ("};
  const std::vector<std::string> resources = {"cpu", "memory", "gpu", "absent"};
  const std::vector<std::string> containers = {"", "app", "side"};
  std::mt19937 rng(12);
  int compared = 0;
  for (int round = 0; round < 200; ++round) {
    World w = randomWorld(rng);
    const PodLabelsLookup labels = labelsIn(w);
    const IndexedPodMetrics::PodsOfSelector podsOf = podsIn(w);
    IndexedPodMetrics indexed(std::move(w.list), "shop");
    for (const auto& s : selectors) {
      const ResourceMetricsRequest request{"shop", s};
      auto selected = indexed.select(request, podsOf, labels);
      for (const auto& resource : resources) {
        for (const auto& container : containers) {
          auto got = indexed.resourceMetrics(request, resource, container, podsOf, labels);
          if (!selected.ok()) {
            ASSERT_FALSE(got.ok());
            EXPECT_EQ(got.error().message, resourceFetchError(selected.error()).message);
            continue;
          }
          auto want = resourceMetricsFromPodMetrics(*selected, resource, container);
          ASSERT_EQ(got.ok(), want.ok()) << s << " " << resource << " " << container;
          if (!want.ok()) {
            EXPECT_EQ(got.error().message, want.error().message);
            continue;
          }
          EXPECT_EQ(got->timestamp, want->timestamp);
          EXPECT_EQ(got->metrics, want->metrics)
              << s << " " << resource << " " << container << " round " << round;
          compared += static_cast<int>(want->metrics.size());
        }
      }
    }
  }
  EXPECT_GT(compared, 10000);
}

}  // namespace
}  // namespace hpa::metricsclient
