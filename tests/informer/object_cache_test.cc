// The informer's cache: objects by namespace and name, keyed by a view of the object's own name
// where it has one (pods), by a copy otherwise.

#include "informer/object_cache.h"

#include <gtest/gtest.h>

#include "api/pod.h"
#include "fakes/pod_builder.h"

namespace hpa::informer {
namespace {

using hpa::testing::PodBuilder;

struct Unnamed {
  std::string value;
};

static_assert(NamesItself<api::Pod>);
static_assert(!NamesItself<Unnamed>);

std::shared_ptr<const api::Pod> pod(const std::string& ns, const std::string& name,
                                    const std::string& version) {
  auto p = PodBuilder(name, ns).build();
  p.resourceVersion = version;
  return std::make_shared<const api::Pod>(std::move(p));
}

// A replaced pod's key must not go on viewing the name of the object it replaced: the old one is
// released here, and its memory reused, before the cache is read again (AddressSanitizer, in the
// sanitizer job, reports any read of it).
TEST(ObjectCache, AReplacedPodIsFoundUnderItsNameAfterThePreviousOneIsGone) {
  ObjectCache<api::Pod> cache;
  const std::string name = "web-7d9f8b6c5d-100001";  // longer than a short string's inline buffer
  EXPECT_EQ(cache.put("shop", "shop/" + name, pod("shop", name, "1")), nullptr);
  EXPECT_EQ(
      cache.put("shop", "shop/web-7d9f8b6c5d-100000", pod("shop", "web-7d9f8b6c5d-100000", "1")),
      nullptr);
  for (int version = 2; version < 6; ++version) {
    auto old = cache.put("shop", "shop/" + name, pod("shop", name, std::to_string(version)));
    ASSERT_NE(old, nullptr);
    EXPECT_EQ(old->resourceVersion, std::to_string(version - 1));
    old.reset();  // the only owner left: the previous pod and its name are freed
    std::vector<std::string> filler(8, std::string(name.size(), 'x'));  // take the freed memory
    auto got = cache.get("shop/" + name);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->resourceVersion, std::to_string(version));
  }
  EXPECT_EQ(cache.size(), 2u);
  std::vector<std::string> keys;
  for (const auto& [key, p] : cache.all()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"shop/web-7d9f8b6c5d-100000", "shop/" + name}));
  ASSERT_EQ(cache.list("shop").size(), 2u);

  auto removed = cache.remove("shop", "shop/" + name);
  ASSERT_NE(removed, nullptr);
  EXPECT_EQ(removed->resourceVersion, "5");
  EXPECT_EQ(cache.get("shop/" + name), nullptr);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.remove("shop", "shop/" + name), nullptr);
}

TEST(ObjectCache, ObjectsWithoutANameAreKeyedByTheirKeyIncludingClusterScoped) {
  ObjectCache<Unnamed> cache;
  EXPECT_EQ(cache.put("", "node-1", std::make_shared<const Unnamed>(Unnamed{"a"})), nullptr);
  EXPECT_EQ(cache.put("shop", "shop/web", std::make_shared<const Unnamed>(Unnamed{"b"})), nullptr);
  auto old = cache.put("shop", "shop/web", std::make_shared<const Unnamed>(Unnamed{"c"}));
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->value, "b");
  ASSERT_NE(cache.get("node-1"), nullptr);
  EXPECT_EQ(cache.get("node-1")->value, "a");
  EXPECT_EQ(cache.get("shop/web")->value, "c");
  EXPECT_EQ(cache.get("shop/api"), nullptr);
  EXPECT_EQ(cache.size(), 2u);
}

}  // namespace
}  // namespace hpa::informer
