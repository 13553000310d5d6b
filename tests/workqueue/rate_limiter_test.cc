#include "workqueue/rate_limiter.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fakes/fake_clock.h"

namespace hpa::workqueue {
namespace {

using hpa::testing::FakeClock;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::vector<Duration> delays(RateLimiter& limiter, const std::string& key, int count) {
  std::vector<Duration> out;
  for (int i = 0; i < count; ++i) out.push_back(limiter.when(key));
  return out;
}

TEST(ItemExponentialFailureRateLimiter, DoublesFromBasePerKey) {
  ItemExponentialFailureRateLimiter limiter(milliseconds(5), seconds(1000));
  EXPECT_EQ(delays(limiter, "a", 5),
            (std::vector<Duration>{milliseconds(5), milliseconds(10), milliseconds(20),
                                   milliseconds(40), milliseconds(80)}));
  EXPECT_EQ(limiter.numRequeues("a"), 5);
  EXPECT_EQ(limiter.when("b"), milliseconds(5)) << "keys back off independently";
  EXPECT_EQ(limiter.numRequeues("b"), 1);
  EXPECT_EQ(limiter.numRequeues("never-seen"), 0);
}

TEST(ItemExponentialFailureRateLimiter, CapsAtMaxDelay) {
  ItemExponentialFailureRateLimiter limiter(milliseconds(1), milliseconds(10));
  EXPECT_EQ(delays(limiter, "a", 6),
            (std::vector<Duration>{milliseconds(1), milliseconds(2), milliseconds(4),
                                   milliseconds(8), milliseconds(10), milliseconds(10)}));
}

TEST(ItemExponentialFailureRateLimiter, ForgetResetsTheBackOff) {
  ItemExponentialFailureRateLimiter limiter(milliseconds(5), seconds(1000));
  delays(limiter, "a", 3);
  limiter.forget("a");
  EXPECT_EQ(limiter.numRequeues("a"), 0);
  EXPECT_EQ(limiter.when("a"), milliseconds(5));
}

TEST(ItemExponentialFailureRateLimiter, HugeExponentsCapInsteadOfOverflowing) {
  ItemExponentialFailureRateLimiter limiter(seconds(1), seconds(1000));
  auto sequence = delays(limiter, "a", 200);
  EXPECT_EQ(sequence[9], seconds(512));
  EXPECT_EQ(sequence[10], seconds(1000));
  EXPECT_EQ(sequence.back(), seconds(1000));

  ItemExponentialFailureRateLimiter uncapped(Duration(1), Duration::max());
  auto big = delays(uncapped, "a", 70);
  EXPECT_EQ(big[62], Duration(Duration::rep{1} << 62));
  EXPECT_EQ(big[63], Duration::max());
  EXPECT_EQ(big[69], Duration::max());

  ItemExponentialFailureRateLimiter zeroBase(Duration::zero(), seconds(1));
  EXPECT_EQ(delays(zeroBase, "a", 70).back(), Duration::zero());
}

TEST(BucketRateLimiter, GrantsTheBurstThenSpacesByOneOverQps) {
  FakeClock clock;
  BucketRateLimiter limiter(10, 3, clock);
  EXPECT_EQ(limiter.when("a"), Duration::zero());
  EXPECT_EQ(limiter.when("b"), Duration::zero());
  EXPECT_EQ(limiter.when("a"), Duration::zero());
  EXPECT_EQ(limiter.when("c"), milliseconds(100));
  EXPECT_EQ(limiter.when("a"), milliseconds(200));
  EXPECT_EQ(limiter.numRequeues("a"), 0) << "the bucket keeps no per-key state";
  limiter.forget("a");
  EXPECT_EQ(limiter.when("a"), milliseconds(300)) << "forget does not return tokens";

  clock.step(seconds(10));
  EXPECT_EQ(delays(limiter, "a", 4), (std::vector<Duration>{Duration::zero(), Duration::zero(),
                                                            Duration::zero(), milliseconds(100)}))
      << "the refill stops at the burst";
}

TEST(MaxOfRateLimiter, TakesTheLongestDelayAndAsksEveryLimiter) {
  std::vector<RateLimiterPtr> parts;
  parts.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(milliseconds(1), seconds(1)));
  parts.push_back(
      std::make_unique<ItemExponentialFailureRateLimiter>(milliseconds(3), milliseconds(10)));
  MaxOfRateLimiter limiter(std::move(parts));
  EXPECT_EQ(delays(limiter, "a", 6),
            (std::vector<Duration>{milliseconds(3), milliseconds(6), milliseconds(10),
                                   milliseconds(10), milliseconds(16), milliseconds(32)}));
  EXPECT_EQ(limiter.numRequeues("a"), 6);
  limiter.forget("a");
  EXPECT_EQ(limiter.numRequeues("a"), 0);
  EXPECT_EQ(limiter.when("a"), milliseconds(3)) << "forget reaches every limiter";
}

TEST(MaxOfRateLimiter, ReportsTheLargestRequeueCount) {
  std::vector<RateLimiterPtr> parts;
  parts.push_back(std::make_unique<FixedIntervalRateLimiter>(seconds(15)));
  parts.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(milliseconds(1), seconds(1)));
  MaxOfRateLimiter limiter(std::move(parts));
  EXPECT_EQ(limiter.numRequeues("a"), 1);
  delays(limiter, "a", 3);
  EXPECT_EQ(limiter.numRequeues("a"), 3);
}

TEST(FixedIntervalRateLimiter, AlwaysWaitsTheSyncPeriod) {
  FixedIntervalRateLimiter limiter(seconds(15));
  EXPECT_EQ(limiter.numRequeues("a"), 1);
  EXPECT_EQ(delays(limiter, "a", 4), std::vector<Duration>(4, seconds(15)));
  EXPECT_EQ(limiter.when("b"), seconds(15));
  EXPECT_EQ(limiter.numRequeues("a"), 1);
  limiter.forget("a");
  EXPECT_EQ(limiter.numRequeues("a"), 1);
  EXPECT_EQ(limiter.when("a"), seconds(15));
}

TEST(FixedIntervalRateLimiter, AKeyMayHaveItsOwnInterval) {
  FixedIntervalRateLimiter limiter(seconds(15));
  limiter.setInterval("fast", seconds(2));
  limiter.setInterval("slow", seconds(30));
  EXPECT_EQ(delays(limiter, "fast", 3), std::vector<Duration>(3, seconds(2)));
  EXPECT_EQ(limiter.when("slow"), seconds(30));
  EXPECT_EQ(limiter.when("other"), seconds(15));
  EXPECT_EQ(limiter.keysWithOwnInterval(), 2u);
  // forget() keeps upstream's meaning (nothing); only the owner drops an interval.
  limiter.forget("fast");
  EXPECT_EQ(limiter.when("fast"), seconds(2));
  limiter.setInterval("fast", std::nullopt);
  EXPECT_EQ(limiter.when("fast"), seconds(15));
  // Setting the default interval keeps no entry.
  limiter.setInterval("slow", seconds(15));
  EXPECT_EQ(limiter.when("slow"), seconds(15));
  EXPECT_EQ(limiter.keysWithOwnInterval(), 0u);
}

TEST(DefaultControllerRateLimiter, BacksOffPerKeyAndPacesAllKeysTogether) {
  FakeClock clock;
  RateLimiterPtr limiter = defaultControllerRateLimiter(clock);
  EXPECT_EQ(delays(*limiter, "a", 3),
            (std::vector<Duration>{milliseconds(5), milliseconds(10), milliseconds(20)}));
  // Three tokens are gone; 97 more keys empty the bucket of 100.
  for (int i = 0; i < 97; ++i) {
    EXPECT_EQ(limiter->when("key-" + std::to_string(i)), milliseconds(5));
  }
  EXPECT_EQ(limiter->when("b"), milliseconds(100)) << "10 qps once the burst is spent";
  EXPECT_EQ(limiter->when("b"), milliseconds(200));
  EXPECT_EQ(limiter->numRequeues("b"), 2);
  EXPECT_EQ(limiter->numRequeues("a"), 3);
}

}  // namespace
}  // namespace hpa::workqueue
