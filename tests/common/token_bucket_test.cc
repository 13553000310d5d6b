#include "common/token_bucket.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"

namespace hpa {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::eventually;
using testing::FakeClock;

TEST(TokenBucket, StartsFullThenRefusesUntilRefilled) {
  FakeClock clock;
  TokenBucket bucket(10, 3, clock);
  EXPECT_TRUE(bucket.tryAccept());
  EXPECT_TRUE(bucket.tryAccept());
  EXPECT_TRUE(bucket.tryAccept());
  EXPECT_FALSE(bucket.tryAccept());
  EXPECT_FALSE(bucket.tryAccept()) << "a refusal leaves no debt";
  clock.step(milliseconds(99));
  EXPECT_FALSE(bucket.tryAccept());
  clock.step(milliseconds(1));
  EXPECT_TRUE(bucket.tryAccept());
  EXPECT_FALSE(bucket.tryAccept());
}

TEST(TokenBucket, RefillStopsAtTheBurst) {
  FakeClock clock;
  TokenBucket bucket(10, 3, clock);
  clock.step(seconds(3600));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(bucket.tryAccept()) << i;
  EXPECT_FALSE(bucket.tryAccept());
}

TEST(TokenBucket, ReservationsBeyondTheBurstQueueUpAtOneOverQps) {
  FakeClock clock;
  TokenBucket bucket(10, 3, clock);
  EXPECT_EQ(bucket.reserve(), Duration::zero());
  EXPECT_EQ(bucket.reserve(), Duration::zero());
  EXPECT_EQ(bucket.reserve(), Duration::zero());
  EXPECT_EQ(bucket.reserve(), milliseconds(100));
  EXPECT_EQ(bucket.reserve(), milliseconds(200));
  clock.step(milliseconds(150));
  EXPECT_EQ(bucket.reserve(), milliseconds(150));
  // Reserved tokens are owed: nothing is free until the debt is paid off.
  EXPECT_FALSE(bucket.tryAccept());
  clock.step(milliseconds(150));
  EXPECT_FALSE(bucket.tryAccept());
  clock.step(milliseconds(100));
  EXPECT_TRUE(bucket.tryAccept());
}

TEST(TokenBucket, FractionalRates) {
  FakeClock clock;
  TokenBucket bucket(0.5, 1, clock);
  EXPECT_EQ(bucket.reserve(), Duration::zero());
  EXPECT_EQ(bucket.reserve(), seconds(2));
  EXPECT_EQ(bucket.reserve(), seconds(4));
}

TEST(TokenBucket, NonPositiveRateMeansUnlimited) {
  FakeClock clock;
  TokenBucket zero(0, 1, clock);
  TokenBucket negative(-1, 1, clock);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(zero.tryAccept());
    ASSERT_EQ(negative.reserve(), Duration::zero());
  }
  zero.wait();
}

TEST(TokenBucket, BurstBelowOneStillGrantsOneToken) {
  FakeClock clock;
  TokenBucket bucket(10, 0, clock);
  EXPECT_TRUE(bucket.tryAccept());
  EXPECT_FALSE(bucket.tryAccept());
}

TEST(TokenBucket, WaitBlocksOnTheClockUntilTheTokenIsEarned) {
  FakeClock clock;
  TokenBucket bucket(10, 1, clock);
  bucket.wait();  // The full bucket grants at once.
  std::atomic<bool> returned{false};
  std::thread caller([&] {
    bucket.wait();
    returned = true;
  });
  ASSERT_TRUE(eventually([&] { return clock.waiterCount() == 1; }));
  EXPECT_FALSE(returned);
  clock.step(milliseconds(100));
  caller.join();
  EXPECT_TRUE(returned);
  EXPECT_EQ(clock.waiterCount(), 0u);
}

TEST(TokenBucket, ConcurrentCallersShareTheBurstExactly) {
  FakeClock clock;
  TokenBucket bucket(1, 50, clock);
  std::atomic<int> granted{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        if (bucket.tryAccept()) ++granted;
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(granted, 50);
}

}  // namespace
}  // namespace hpa
