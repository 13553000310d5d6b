#include "serving/auth_cache.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"

namespace hpa::serving {
namespace {

using std::chrono::seconds;

class CountingTokens final : public TokenReviewer {
 public:
  Result<TokenReviewResult> review(const std::string& token) override {
    ++calls;
    if (failing) return Error::of("TokenReview failed: 503");
    return TokenReviewResult{token == "good", UserInfo{token == "good" ? "alice" : "", "", {}, {}},
                             ""};
  }
  int calls = 0;
  bool failing = false;
};

class CountingAccess final : public AccessReviewer {
 public:
  Result<AccessDecision> review(const UserInfo& user, const NonResourceAccess&) override {
    ++calls;
    if (failing) return Error::of("SubjectAccessReview failed: 503");
    return AccessDecision{user.name == "alice", ""};
  }
  int calls = 0;
  bool failing = false;
};

TEST(CachingTokenReviewer, RemembersVerdictsForTheTtl) {
  hpa::testing::FakeClock clock;
  CountingTokens inner;
  CachingTokenReviewer cache(inner, clock, seconds(10));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(cache.review("good")->authenticated);
    ASSERT_FALSE(cache.review("bad")->authenticated);  // a "no" is remembered too
  }
  EXPECT_EQ(inner.calls, 2);
  clock.step(seconds(9));
  EXPECT_TRUE(cache.review("good").ok());
  EXPECT_EQ(inner.calls, 2);
  clock.step(seconds(1));
  EXPECT_EQ(cache.review("good")->user.name, "alice");
  EXPECT_EQ(inner.calls, 3);
}

TEST(CachingTokenReviewer, FailedReviewsAreAskedAgain) {
  hpa::testing::FakeClock clock;
  CountingTokens inner;
  CachingTokenReviewer cache(inner, clock, seconds(10));
  inner.failing = true;
  EXPECT_FALSE(cache.review("good").ok());
  inner.failing = false;
  EXPECT_TRUE(cache.review("good")->authenticated);
  EXPECT_EQ(inner.calls, 2);
}

TEST(CachingTokenReviewer, ZeroTtlCachesNothing) {
  hpa::testing::FakeClock clock;
  CountingTokens inner;
  CachingTokenReviewer cache(inner, clock, seconds(0));
  EXPECT_TRUE(cache.review("good").ok());
  EXPECT_TRUE(cache.review("good").ok());
  EXPECT_EQ(inner.calls, 2);
}

TEST(CachingAccessReviewer, AllowedAndDeniedHaveTheirOwnTtl) {
  hpa::testing::FakeClock clock;
  CountingAccess inner;
  CachingAccessReviewer cache(inner, clock, seconds(10), seconds(2));
  const NonResourceAccess metrics{"/metrics", "get"};
  const UserInfo alice{"alice", "", {"system:authenticated"}, {}};
  const UserInfo bob{"bob", "", {"system:authenticated"}, {}};
  EXPECT_TRUE(cache.review(alice, metrics)->allowed);
  EXPECT_FALSE(cache.review(bob, metrics)->allowed);
  EXPECT_EQ(inner.calls, 2);
  clock.step(seconds(2));
  EXPECT_TRUE(cache.review(alice, metrics).ok());  // still cached
  EXPECT_TRUE(cache.review(bob, metrics).ok());    // denied entry expired
  EXPECT_EQ(inner.calls, 3);
  // Another path, verb or group is another question.
  EXPECT_TRUE(cache.review(alice, NonResourceAccess{"/metrics", "post"}).ok());
  EXPECT_TRUE(cache.review(alice, NonResourceAccess{"/debug", "get"}).ok());
  EXPECT_TRUE(
      cache.review(UserInfo{"alice", "", {"system:authenticated", "admins"}, {}}, metrics).ok());
  EXPECT_EQ(inner.calls, 6);
}

TEST(CachingAccessReviewer, FailedReviewsAreAskedAgain) {
  hpa::testing::FakeClock clock;
  CountingAccess inner;
  CachingAccessReviewer cache(inner, clock, seconds(10), seconds(10));
  inner.failing = true;
  EXPECT_FALSE(cache.review(UserInfo{"alice", "", {}, {}}, {"/metrics", "get"}).ok());
  inner.failing = false;
  EXPECT_TRUE(cache.review(UserInfo{"alice", "", {}, {}}, {"/metrics", "get"})->allowed);
  EXPECT_EQ(inner.calls, 2);
}

TEST(ExpiringMap, StaysWithinItsCapacity) {
  hpa::testing::FakeClock clock;
  ExpiringMap<int> map(3);
  const Time now = clock.now();
  for (int i = 0; i < 10; ++i) map.put(std::to_string(i), i, now + seconds(10), now);
  EXPECT_LE(map.size(), 3u);
  EXPECT_EQ(map.get("9", now), 9);
  // Expired entries make room first.
  ExpiringMap<int> other(2);
  other.put("old", 1, now + seconds(1), now);
  other.put("keep", 2, now + seconds(10), now);
  other.put("new", 3, now + seconds(10), now + seconds(5));
  EXPECT_EQ(other.get("keep", now + seconds(5)), 2);
  EXPECT_EQ(other.get("new", now + seconds(5)), 3);
  EXPECT_EQ(other.get("old", now), std::nullopt);
}

TEST(Sha256Hex, KnownDigest) {
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace hpa::serving
