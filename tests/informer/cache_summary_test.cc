#include "informer/cache_summary.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace hpa::informer {
namespace {

struct Versioned {
  std::string resourceVersion;
};

std::string versionOf(const Versioned& v) { return v.resourceVersion; }

TEST(CacheSummary, Fnv1a32IsTheStandardHash) {
  // Published FNV-1a 32-bit test vectors: hack/soak.sh computes the same in Python.
  EXPECT_EQ(fnv1a32(""), 0x811c9dc5u);
  EXPECT_EQ(fnv1a32("a"), 0xe40c292cu);
  EXPECT_EQ(fnv1a32("foobar"), 0xbf9cf968u);
}

TEST(CacheSummary, SameObjectsSameDigestInAnyOrder) {
  ObjectCache<Versioned> a, b;
  a.put("shop", "shop/web", std::make_shared<Versioned>(Versioned{"10"}));
  a.put("shop", "shop/api", std::make_shared<Versioned>(Versioned{"11"}));
  a.put("", "node-1", std::make_shared<Versioned>(Versioned{"12"}));
  b.put("", "node-1", std::make_shared<Versioned>(Versioned{"12"}));
  b.put("shop", "shop/api", std::make_shared<Versioned>(Versioned{"11"}));
  b.put("shop", "shop/web", std::make_shared<Versioned>(Versioned{"10"}));
  const auto sa = summarize(a, versionOf);
  EXPECT_EQ(sa, summarize(b, versionOf));
  EXPECT_EQ(sa.objects, 3u);
  EXPECT_EQ(sa.digest, fnv1a32("shop/web 10") + fnv1a32("shop/api 11") + fnv1a32("node-1 12"));
}

TEST(CacheSummary, AnyChangeChangesTheDigest) {
  ObjectCache<Versioned> cache;
  cache.put("shop", "shop/web", std::make_shared<Versioned>(Versioned{"10"}));
  const auto before = summarize(cache, versionOf);
  cache.put("shop", "shop/web", std::make_shared<Versioned>(Versioned{"13"}));
  const auto updated = summarize(cache, versionOf);
  EXPECT_EQ(updated.objects, 1u);
  EXPECT_NE(updated.digest, before.digest);
  cache.remove("shop", "shop/web");
  EXPECT_EQ(summarize(cache, versionOf), (CacheSummary{0, 0}));
}

}  // namespace
}  // namespace hpa::informer
