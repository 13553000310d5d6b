#include "workqueue/delaying_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"

namespace hpa::workqueue {
namespace {

using hpa::testing::eventually;
using hpa::testing::FakeClock;
using std::chrono::nanoseconds;
using std::chrono::seconds;
using Keys = std::vector<std::string>;

// Takes every key the queue holds once the waiting loop has moved all keys due at the clock's
// current time. A probe due 1 ns later is the barrier: the loop moves due keys in deadline
// order, so the probe arrives after all of them.
Keys takeReadyKeys(DelayingQueue& q, FakeClock& clock) {
  const std::string probe = "\x01probe";
  q.addAfter(probe, nanoseconds(1));
  clock.step(nanoseconds(1));
  Keys keys;
  while (true) {
    if (!eventually([&] { return q.len() > 0; })) {
      ADD_FAILURE() << "the waiting loop never moved the probe";
      return keys;
    }
    std::string key = *q.get();
    q.done(key);
    if (key == probe) return keys;
    keys.push_back(key);
  }
}

TEST(DelayingQueue, NonPositiveDelayAddsAtOnce) {
  FakeClock clock;
  DelayingQueue q(clock);
  q.addAfter("zero", seconds(0));
  q.addAfter("negative", seconds(-5));
  EXPECT_EQ(q.len(), 2u);
  EXPECT_EQ(q.get(), "zero");
  EXPECT_EQ(q.get(), "negative");
}

TEST(DelayingQueue, KeyArrivesWhenItsDelayHasPassed) {
  FakeClock clock;
  DelayingQueue q(clock);
  q.addAfter("a", seconds(10));
  clock.step(seconds(9));
  EXPECT_EQ(takeReadyKeys(q, clock), Keys{});
  clock.step(seconds(1));
  EXPECT_EQ(takeReadyKeys(q, clock), Keys{"a"});
  clock.step(seconds(60));
  EXPECT_EQ(takeReadyKeys(q, clock), Keys{}) << "a delayed add happens once";
}

TEST(DelayingQueue, KeysArriveInDeadlineOrder) {
  FakeClock clock;
  DelayingQueue q(clock);
  q.addAfter("c", seconds(3));
  q.addAfter("a", seconds(1));
  q.addAfter("b", seconds(2));
  q.addAfter("a2", seconds(1));
  clock.step(seconds(3));
  EXPECT_EQ(takeReadyKeys(q, clock), (Keys{"a", "a2", "b", "c"}));
}

TEST(DelayingQueue, EarlierDeadlineReplacesAWaitingOne) {
  FakeClock clock;
  DelayingQueue q(clock);
  q.addAfter("a", seconds(10));
  q.addAfter("a", seconds(2));
  clock.step(seconds(2));
  EXPECT_EQ(takeReadyKeys(q, clock), Keys{"a"});
  clock.step(seconds(10));
  EXPECT_EQ(takeReadyKeys(q, clock), Keys{}) << "the replaced deadline is gone";
}

TEST(DelayingQueue, LaterDeadlineDoesNotPostponeAWaitingKey) {
  FakeClock clock;
  DelayingQueue q(clock);
  q.addAfter("a", seconds(2));
  q.addAfter("a", seconds(10));
  clock.step(seconds(2));
  EXPECT_EQ(takeReadyKeys(q, clock), Keys{"a"});
  clock.step(seconds(10));
  EXPECT_EQ(takeReadyKeys(q, clock), Keys{});
}

TEST(DelayingQueue, DueKeyAlreadyQueuedIsCollapsed) {
  FakeClock clock;
  DelayingQueue q(clock);
  q.add("a");
  q.addAfter("a", seconds(1));
  clock.step(seconds(1));
  // Not takeReadyKeys(): taking "a" before the loop moves its delayed copy would let it in again.
  q.addAfter("probe", nanoseconds(1));
  clock.step(nanoseconds(1));
  ASSERT_TRUE(eventually([&] { return q.len() == 2u; }));
  EXPECT_EQ(q.get(), "a");
  EXPECT_EQ(q.get(), "probe");
}

TEST(DelayingQueue, WaitingThreadParksOnTheClock) {
  FakeClock clock;
  DelayingQueue q(clock);
  EXPECT_TRUE(eventually([&] { return clock.waiterCount() == 1; }));
  q.addAfter("a", seconds(1));
  EXPECT_TRUE(eventually([&] { return clock.waiterCount() == 1; }));
  q.shutDown();
  EXPECT_TRUE(eventually([&] { return clock.waiterCount() == 0; })) << "the loop stops";
}

TEST(DelayingQueue, ShutDownDropsWaitingKeysAndIgnoresNewOnes) {
  FakeClock clock;
  DelayingQueue q(clock);
  q.addAfter("waiting", seconds(1));
  q.addAfter("queued", seconds(0));
  q.shutDown();
  q.addAfter("late", seconds(0));
  q.addAfter("late-delayed", seconds(1));
  clock.step(seconds(5));
  EXPECT_EQ(q.get(), "queued");
  EXPECT_EQ(q.get(), std::nullopt);
}

TEST(DelayingQueue, ShutDownWithDrainStopsTheLoopAndWaitsForWorkers) {
  FakeClock clock;
  DelayingQueue q(clock);
  q.add("a");
  q.addAfter("b", seconds(1));
  ASSERT_EQ(q.get(), "a");
  q.done("a");
  q.shutDownWithDrain();
  EXPECT_TRUE(q.shuttingDown());
  EXPECT_TRUE(eventually([&] { return clock.waiterCount() == 0; }));
  clock.step(seconds(5));
  EXPECT_EQ(q.get(), std::nullopt);
}

TEST(DelayingQueue, DestructorStopsTheLoopWithKeysWaiting) {
  FakeClock clock;
  {
    DelayingQueue q(clock);
    q.addAfter("a", seconds(100));
  }
  EXPECT_EQ(clock.waiterCount(), 0u);
}

}  // namespace
}  // namespace hpa::workqueue
