#include "workqueue/queue.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"

namespace hpa::workqueue {
namespace {

using hpa::testing::eventually;

TEST(Queue, HandsOutKeysInOrderAdded) {
  Queue q;
  q.add("b");
  q.add("a");
  q.add("c");
  EXPECT_EQ(q.get(), "b");
  EXPECT_EQ(q.get(), "a");
  EXPECT_EQ(q.get(), "c");
}

TEST(Queue, CollapsesDuplicatesWhileQueued) {
  Queue q;
  q.add("a");
  q.add("b");
  q.add("a");
  EXPECT_EQ(q.len(), 2u);
  EXPECT_EQ(q.get(), "a");
  EXPECT_EQ(q.get(), "b");
  EXPECT_EQ(q.len(), 0u);
}

TEST(Queue, KeyAddedWhileProcessingIsQueuedAgainOnlyAfterDone) {
  Queue q;
  q.add("a");
  ASSERT_EQ(q.get(), "a");
  q.add("a");
  q.add("a");
  EXPECT_EQ(q.len(), 0u) << "handing it out now would give it to a second worker";
  EXPECT_EQ(q.inFlight(), 1u);
  q.done("a");
  EXPECT_EQ(q.len(), 1u);
  EXPECT_EQ(q.inFlight(), 0u);
  EXPECT_EQ(q.get(), "a");
  q.done("a");
  EXPECT_EQ(q.len(), 0u);
}

TEST(Queue, AddIfIdleLeavesAKeyBeingProcessedToItsWorker) {
  Queue q;
  q.add("a");
  ASSERT_EQ(q.get(), "a");
  q.addIfIdle("a");
  q.done("a");
  EXPECT_EQ(q.len(), 0u) << "the worker that held it decides whether it comes back";
  q.addIfIdle("a");
  q.addIfIdle("a");
  EXPECT_EQ(q.len(), 1u) << "an idle key is added once";
  EXPECT_EQ(q.get(), "a");
}

TEST(Queue, DoneWithoutNewAddDoesNotRequeue) {
  Queue q;
  q.add("a");
  ASSERT_EQ(q.get(), "a");
  q.done("a");
  EXPECT_EQ(q.len(), 0u);
  q.add("a");
  EXPECT_EQ(q.len(), 1u) << "a finished key can be added again";
}

TEST(Queue, DoneForKeyNotBeingProcessedIsIgnored) {
  Queue q;
  q.add("a");
  q.done("a");
  q.done("never-added");
  EXPECT_EQ(q.len(), 1u);
  EXPECT_EQ(q.get(), "a");
}

TEST(Queue, GetBlocksUntilAKeyIsAdded) {
  Queue q;
  std::atomic<bool> returned{false};
  std::optional<std::string> got;
  std::thread worker([&] {
    got = q.get();
    returned = true;
  });
  for (int i = 0; i < 1000; ++i) std::this_thread::yield();
  EXPECT_FALSE(returned) << "get() returned with nothing queued";
  q.add("a");
  worker.join();
  EXPECT_EQ(got, "a");
}

TEST(Queue, ShutDownWakesEveryBlockedGetter) {
  Queue q;
  constexpr int kWorkers = 4;
  std::atomic<int> exited{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < kWorkers; ++i) {
    workers.emplace_back([&] {
      if (!q.get().has_value()) ++exited;
    });
  }
  for (int i = 0; i < 1000; ++i) std::this_thread::yield();
  EXPECT_EQ(exited, 0);
  q.shutDown();
  for (auto& w : workers) w.join();
  EXPECT_EQ(exited, kWorkers);
  EXPECT_TRUE(q.shuttingDown());
}

TEST(Queue, AfterShutDownHandsOutWhatIsLeftThenSignalsExit) {
  Queue q;
  q.add("a");
  q.add("b");
  EXPECT_FALSE(q.shuttingDown());
  q.shutDown();
  EXPECT_TRUE(q.shuttingDown());
  q.add("c");
  EXPECT_EQ(q.len(), 2u) << "adds after shut-down are ignored";
  EXPECT_EQ(q.get(), "a");
  EXPECT_EQ(q.get(), "b");
  EXPECT_EQ(q.get(), std::nullopt);
}

TEST(Queue, KeyAddedBeforeShutDownWhileProcessingIsStillHandedOut) {
  Queue q;
  q.add("a");
  ASSERT_EQ(q.get(), "a");
  q.add("a");
  q.shutDown();
  q.done("a");
  EXPECT_EQ(q.get(), "a");
  q.done("a");
  EXPECT_EQ(q.get(), std::nullopt);
}

TEST(Queue, ShutDownWithDrainWaitsForProcessingToFinish) {
  Queue q;
  q.add("a");
  q.add("b");
  ASSERT_EQ(q.get(), "a");
  ASSERT_EQ(q.get(), "b");
  std::atomic<bool> drained{false};
  std::thread stopper([&] {
    q.shutDownWithDrain();
    drained = true;
  });
  ASSERT_TRUE(eventually([&] { return q.shuttingDown(); }));
  q.add("c");
  EXPECT_EQ(q.len(), 0u);
  q.done("a");
  for (int i = 0; i < 1000; ++i) std::this_thread::yield();
  EXPECT_FALSE(drained) << "b is still being processed";
  q.done("b");
  stopper.join();
  EXPECT_TRUE(drained);
  EXPECT_EQ(q.get(), std::nullopt);
}

TEST(Queue, ShutDownWithDrainReturnsAtOnceWhenNothingIsProcessed) {
  Queue q;
  q.shutDownWithDrain();
  EXPECT_TRUE(q.shuttingDown());
  EXPECT_EQ(q.get(), std::nullopt);
}

TEST(Queue, ShutDownEndsAPendingDrain) {
  Queue q;
  q.add("stuck");
  ASSERT_EQ(q.get(), "stuck");
  std::thread stopper([&] { q.shutDownWithDrain(); });
  ASSERT_TRUE(eventually([&] { return q.shuttingDown(); }));
  q.shutDown();
  stopper.join();  // Returns although "stuck" was never done.
  q.done("stuck");
}

// Several workers hammer a few keys that a producer keeps adding; no key may ever be processed
// by two workers at the same time, and every add must be followed by a processing of its key.
TEST(Queue, NeverHandsOneKeyToTwoWorkersAtOnce) {
  Queue q;
  constexpr int kKeys = 4;
  constexpr int kWorkers = 6;
  constexpr int kAddsPerKey = 500;
  std::array<std::atomic<int>, kKeys> inFlight{};
  std::array<std::atomic<int>, kKeys> processed{};
  // Producer bumps addsMade before each add; a worker records what it saw when it started, so a
  // processing that started after the key's last add sees the final count.
  std::array<std::atomic<int>, kKeys> addsMade{};
  std::array<std::atomic<int>, kKeys> addsSeenAtStart{};
  std::atomic<int> overlaps{0};

  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      while (auto key = q.get()) {
        int k = std::stoi(*key);
        if (inFlight[k].fetch_add(1) != 0) ++overlaps;
        addsSeenAtStart[k] = addsMade[k].load();
        // Stay busy a little so that re-adds of the key land while it is processed.
        for (int i = 0; i < 3; ++i) std::this_thread::yield();
        ++processed[k];
        inFlight[k].fetch_sub(1);
        q.done(*key);
      }
    });
  }
  for (int round = 0; round < kAddsPerKey; ++round) {
    for (int k = 0; k < kKeys; ++k) {
      ++addsMade[k];
      q.add(std::to_string(k));
    }
  }
  // Every key's last add is handed out before get() signals exit, even across the shut-down.
  q.shutDown();
  for (auto& w : workers) w.join();

  EXPECT_EQ(overlaps, 0);
  for (int k = 0; k < kKeys; ++k) {
    EXPECT_EQ(addsSeenAtStart[k], kAddsPerKey) << "key " << k << " lost its last add";
    EXPECT_LE(processed[k], kAddsPerKey) << "key " << k;
    EXPECT_EQ(inFlight[k], 0);
  }
  EXPECT_EQ(q.len(), 0u);
}

TEST(Queue, KeysWaitFromWhenTheQueueFilledOrTheLastTakeNotFromAnIdleSpellBefore) {
  hpa::testing::FakeClock clock;
  Queue q(clock);
  EXPECT_FALSE(q.waitingSince()) << "nothing waits in an empty queue";
  clock.step(std::chrono::hours(1));  // idle: no wait starts
  const Time filled = clock.now();
  q.add("a");
  clock.step(std::chrono::seconds(5));
  q.add("b");
  EXPECT_EQ(q.waitingSince(), filled) << "a second key does not restart the wait";
  clock.step(std::chrono::seconds(5));
  const Time taken = clock.now();
  ASSERT_EQ(q.get(), "a");
  EXPECT_EQ(q.waitingSince(), taken) << "a take is progress: b waits from it";
  clock.step(std::chrono::seconds(5));
  ASSERT_EQ(q.get(), "b");
  EXPECT_FALSE(q.waitingSince()) << "empty again";
  // A key a worker holds, added again, waits from its done().
  q.add("b");
  EXPECT_FALSE(q.waitingSince());
  clock.step(std::chrono::seconds(5));
  q.done("b");
  EXPECT_EQ(q.waitingSince(), clock.now());
}

TEST(Queue, WithoutAClockNoWaitIsTimed) {
  Queue q;
  q.add("a");
  EXPECT_FALSE(q.waitingSince());
}

}  // namespace
}  // namespace hpa::workqueue
