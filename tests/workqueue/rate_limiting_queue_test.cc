#include "workqueue/rate_limiting_queue.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"

namespace hpa::workqueue {
namespace {

using hpa::testing::eventually;
using hpa::testing::FakeClock;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

// True once `key` is handed out; proves nothing else was queued before it.
bool arrives(RateLimitingQueue& q, const std::string& key) {
  if (!eventually([&] { return q.len() > 0; })) return false;
  auto got = q.get();
  q.done(*got);
  return got == key;
}

TEST(RateLimitingQueue, AddRateLimitedWaitsTheLimitersDelay) {
  FakeClock clock;
  RateLimitingQueue q(clock,
                      std::make_unique<ItemExponentialFailureRateLimiter>(seconds(1), seconds(60)));
  q.addRateLimited("a");
  EXPECT_EQ(q.numRequeues("a"), 1);
  // A second failure asks for 2 s, but the 1 s deadline already waiting wins.
  q.addRateLimited("a");
  EXPECT_EQ(q.numRequeues("a"), 2);
  clock.step(milliseconds(999));
  q.addAfter("probe", nanoseconds(1));
  clock.step(nanoseconds(1));
  EXPECT_TRUE(arrives(q, "probe")) << "a is not due before 1 s";
  clock.step(milliseconds(1));
  EXPECT_TRUE(arrives(q, "a"));

  q.forget("a");
  EXPECT_EQ(q.numRequeues("a"), 0);
  q.addRateLimited("a");
  clock.step(seconds(1));
  EXPECT_TRUE(arrives(q, "a")) << "forget restarted the back-off at 1 s";
}

TEST(RateLimitingQueue, HpaFixedIntervalResyncsAfterTheSyncPeriod) {
  FakeClock clock;
  RateLimitingQueue q(clock, std::make_unique<FixedIntervalRateLimiter>(seconds(15)));
  q.addRateLimited("ns/hpa");
  EXPECT_EQ(q.numRequeues("ns/hpa"), 1);
  clock.step(seconds(14));
  q.addAfter("probe", nanoseconds(1));
  clock.step(nanoseconds(1));
  EXPECT_TRUE(arrives(q, "probe"));
  clock.step(seconds(1));
  EXPECT_TRUE(arrives(q, "ns/hpa"));
}

TEST(RateLimitingQueue, ForgetKeepsADelayedAddThatIsWaiting) {
  FakeClock clock;
  RateLimitingQueue q(clock, std::make_unique<FixedIntervalRateLimiter>(seconds(15)));
  q.addRateLimited("a");
  q.forget("a");
  clock.step(seconds(15));
  EXPECT_TRUE(arrives(q, "a"));
}

TEST(RateLimitingQueue, ZeroDelayFromTheLimiterAddsAtOnce) {
  FakeClock clock;
  RateLimitingQueue q(clock, std::make_unique<BucketRateLimiter>(10, 2, clock));
  q.addRateLimited("a");
  q.addRateLimited("b");
  EXPECT_EQ(q.len(), 2u) << "the burst grants both without delay";
  q.addRateLimited("c");
  EXPECT_EQ(q.len(), 2u);
  clock.step(milliseconds(100));
  EXPECT_TRUE(eventually([&] { return q.len() == 3u; }));
}

TEST(RateLimitingQueue, WorksAsAPlainQueueForWorkers) {
  FakeClock clock;
  RateLimitingQueue q(clock, defaultControllerRateLimiter(clock));
  Queue& plain = q;
  plain.add("a");
  ASSERT_EQ(plain.get(), "a");
  q.addRateLimited("a");  // A failure re-queues with back-off while still processing.
  plain.done("a");
  clock.step(milliseconds(5));
  EXPECT_TRUE(arrives(q, "a"));
  plain.shutDown();
  EXPECT_TRUE(q.shuttingDown());
  EXPECT_EQ(plain.get(), std::nullopt);
}

}  // namespace
}  // namespace hpa::workqueue
