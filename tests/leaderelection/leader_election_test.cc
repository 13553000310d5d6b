#include "leaderelection/leader_election.h"

#include <gtest/gtest.h>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"

namespace hpa::leaderelection {
namespace {

using hpa::testing::eventually;
using std::chrono::seconds;

// One Lease with optimistic concurrency, shared by several electors, with watches that see
// every change (the current state first, as a watch from "now" on an API server).
class FakeLeaseStore final : public LeaseStore {
 public:
  class Watch final : public LeaseWatch {
   public:
    Watch(FakeLeaseStore& store, int seen) : store_(store), seen_(seen) {}
    Result<std::optional<LeaseRecord>> next() override {
      std::unique_lock<std::mutex> lock(store_.mu);
      store_.changed.wait(lock, [&] { return stopped_ || seen_ < store_.version; });
      if (stopped_) return std::optional<LeaseRecord>();
      seen_ = store_.version;
      return std::optional<LeaseRecord>(store_.lease.value_or(LeaseRecord{}));
    }
    void stop() override {
      std::lock_guard<std::mutex> lock(store_.mu);
      stopped_ = true;
      store_.changed.notify_all();
    }

   private:
    FakeLeaseStore& store_;
    int seen_;
    bool stopped_ = false;
  };
  Result<std::unique_ptr<LeaseWatch>> watch() override {
    std::lock_guard<std::mutex> lock(mu);
    if (!watchable) return Error::of("watch not allowed");
    ++watches;
    return std::unique_ptr<LeaseWatch>(std::make_unique<Watch>(*this, version - 1));
  }
  Result<std::optional<LeaseRecord>> get() override {
    std::unique_lock<std::mutex> lock(mu);
    ++gets;
    if (hanging) {
      // As a request whose packets are dropped: no answer until the test lets it time out.
      ++hung;
      changed.wait(lock, [&] { return !hanging; });
      return Error{"GET: no complete answer (request cancelled)", 0, "Timeout"};
    }
    if (failing) return Error{"etcd unavailable", 500, ""};
    return lease;
  }
  Status create(const LeaseRecord& r) override {
    std::lock_guard<std::mutex> lock(mu);
    if (lease) return Error{"already exists", 409, "AlreadyExists"};
    lease = r;
    lease->resourceVersion = std::to_string(++version);
    changed.notify_all();
    return Status();
  }
  Status update(const LeaseRecord& r) override {
    std::lock_guard<std::mutex> lock(mu);
    if (failing) return Error{"etcd unavailable", 500, ""};
    if (!lease || lease->resourceVersion != r.resourceVersion)
      return Error{"conflict", 409, "Conflict"};
    lease = r;
    lease->resourceVersion = std::to_string(++version);
    changed.notify_all();
    return Status();
  }
  std::mutex mu;
  std::condition_variable changed;
  bool watchable = true;
  int watches = 0;
  int gets = 0;
  std::optional<LeaseRecord> lease;
  int version = 0;
  bool failing = false;
  bool hanging = false;
  int hung = 0;
};

LeaderElectionConfig config(const std::string& id) {
  return {id, seconds(15), seconds(10), seconds(2)};
}

TEST(LeaderElection, OnlyOneHolderUntilTheLeaseExpiresUnobserved) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  LeaderElector a(
      store, config("a"), clock, Logger::discard(), [] {}, [] {});
  LeaderElector b(
      store, config("b"), clock, Logger::discard(), [] {}, [] {});
  EXPECT_TRUE(a.tryAcquireOrRenew());
  EXPECT_FALSE(b.tryAcquireOrRenew());
  EXPECT_EQ(store.lease->holderIdentity, "a");
  // a keeps renewing: b never gets it.
  for (int i = 0; i < 10; ++i) {
    clock.step(seconds(2));
    EXPECT_TRUE(a.tryAcquireOrRenew());
    EXPECT_FALSE(b.tryAcquireOrRenew());
  }
  // a stops renewing: b takes over once 15 s pass since b last saw the record change.
  clock.step(seconds(14));
  EXPECT_FALSE(b.tryAcquireOrRenew());
  clock.step(seconds(2));
  EXPECT_TRUE(b.tryAcquireOrRenew());
  EXPECT_EQ(store.lease->holderIdentity, "b");
  EXPECT_EQ(store.lease->leaseTransitions, 1);
  // a's stale write now conflicts.
  EXPECT_FALSE(a.tryAcquireOrRenew());
}

TEST(LeaderElection, RunCallsBackAndReleasesOnStop) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  LeaderElector a(
      store, config("a"), clock, Logger::discard(), [&] { ++started; }, [&] { ++stopped; });
  a.start();
  ASSERT_TRUE(eventually([&] { return a.isLeader(); }));
  // isLeader() turns true just before the callback runs on the elector's thread.
  ASSERT_TRUE(eventually([&] { return started == 1; }));
  a.stop();
  EXPECT_EQ(stopped, 1);
  EXPECT_EQ(store.lease->holderIdentity, "");  // released: a successor need not wait
  LeaderElector b(
      store, config("b"), clock, Logger::discard(), [] {}, [] {});
  EXPECT_TRUE(b.tryAcquireOrRenew());
}

TEST(LeaderElection, StandbyTakesAReleasedLeaseAtOnceThroughItsWatch) {
  hpa::testing::FakeClock clock;  // never stepped: only the watch can wake the standby
  FakeLeaseStore store;
  LeaderElector a(
      store, config("a"), clock, Logger::discard(), [] {}, [] {});
  a.start();
  ASSERT_TRUE(eventually([&] { return a.isLeader(); }));
  auto gets = [&] {
    std::lock_guard<std::mutex> lock(store.mu);
    return store.gets;
  };
  std::atomic<bool> bStarted{false};
  const int before = gets();
  LeaderElector b(
      store, config("b"), clock, Logger::discard(), [&] { bStarted = true; }, [] {});
  b.start();
  ASSERT_TRUE(eventually([&] { return gets() > before; }));  // b tried once, and sleeps
  EXPECT_FALSE(b.isLeader());
  a.stop();  // graceful: releases the Lease
  ASSERT_TRUE(eventually([&] { return b.isLeader(); }))
      << "the standby waited for its retry period";
  EXPECT_TRUE(eventually([&] { return bStarted.load(); }));  // the callback follows isLeader()
  EXPECT_EQ(store.lease->holderIdentity, "b");
  EXPECT_EQ(store.lease->leaseTransitions, 1);
  b.stop();
}

TEST(LeaderElection, WithoutAWatchTheStandbyTakesAReleasedLeaseOnItsNextRetry) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  store.watchable = false;
  LeaderElector a(
      store, config("a"), clock, Logger::discard(), [] {}, [] {});
  a.start();
  ASSERT_TRUE(eventually([&] { return a.isLeader(); }));
  const int before = [&] {
    std::lock_guard<std::mutex> lock(store.mu);
    return store.gets;
  }();
  LeaderElector b(
      store, config("b"), clock, Logger::discard(), [] {}, [] {});
  b.start();
  ASSERT_TRUE(eventually([&] {
    std::lock_guard<std::mutex> lock(store.mu);
    return store.gets > before;
  }));
  a.stop();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(b.isLeader()) << "nothing but the clock should wake a standby without a watch";
  // Retry periods pass: b takes the free Lease.
  ASSERT_TRUE(eventually([&] {
    clock.step(seconds(2));
    return b.isLeader();
  }));
  b.stop();
}

TEST(LeaderElection, NeverReleasesALeaseSomeoneElseHolds) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  LeaderElector a(
      store, config("a"), clock, Logger::discard(), [] {}, [] {});
  a.start();
  ASSERT_TRUE(eventually([&] { return a.isLeader(); }));
  {
    // Another candidate took over behind a's back (e.g. a was paused past the lease duration).
    std::lock_guard<std::mutex> lock(store.mu);
    store.lease->holderIdentity = "c";
    store.lease->resourceVersion = std::to_string(++store.version);
  }
  a.stop();
  EXPECT_EQ(store.lease->holderIdentity, "c");
}

TEST(LeaderElection, LosesLeadershipWhenRenewalsFailPastTheDeadline) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  std::atomic<int> stopped{0};
  LeaderElector a(
      store, config("a"), clock, Logger::discard(), [] {}, [&] { ++stopped; });
  a.start();
  ASSERT_TRUE(eventually([&] { return a.isLeader(); }));
  {
    std::lock_guard<std::mutex> lock(store.mu);
    store.failing = true;
  }
  for (int i = 0; i < 20 && a.isLeader(); ++i) {
    ASSERT_TRUE(
        eventually([&] { return clock.waiterCount() > 0 || !a.isLeader(); }));  // waiting to renew
    const auto waits = clock.waitsBegun();
    clock.step(seconds(2));
    ASSERT_TRUE(eventually(
        [&] { return clock.waitsBegun() > waits || !a.isLeader(); }));  // tried, waits again
  }
  EXPECT_TRUE(eventually([&] { return !a.isLeader(); }));
  EXPECT_TRUE(eventually([&] { return stopped == 1; }));  // the callback follows isLeader()
  a.stop();
}

// The API server cut off from the leader (its packets dropped): the renewal's request neither
// succeeds nor fails. Leadership must still end at the renew deadline, counted from the start of
// the last renewal that succeeded, before the Lease (15 s) can be taken by a standby; upstream's
// renewal gets a context that ends at the deadline.
TEST(LeaderElection, ARenewalThatHangsEndsLeadershipAtTheRenewDeadline) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  std::atomic<int> stopped{0};
  const Time acquired = clock.now();
  LeaderElector a(
      store, config("a"), clock, Logger::discard(), [] {}, [&] { ++stopped; });
  // Destroyed before a: whatever fails below, the hung renewal is let go, so a's threads end.
  struct LetTheRenewalGo {
    FakeLeaseStore& store;
    ~LetTheRenewalGo() {
      {
        std::lock_guard<std::mutex> lock(store.mu);
        store.hanging = false;
      }
      store.changed.notify_all();
    }
  } letGo{store};
  a.start();
  ASSERT_TRUE(eventually([&] { return a.isLeader(); }));
  // Two waiters on the clock: the deadline guard (until acquired + 10 s) and the renewal loop
  // (until acquired + 2 s). The lease watcher has ended, so the next step wakes the renewal.
  ASSERT_TRUE(eventually([&] { return clock.waiterCount() == 2; }));
  {
    std::lock_guard<std::mutex> lock(store.mu);
    store.hanging = true;
  }
  clock.step(seconds(2));
  ASSERT_TRUE(eventually([&] {
    std::lock_guard<std::mutex> lock(store.mu);
    return store.hung == 1;
  }));  // the renewal is in flight, and stays there
  clock.set(acquired + seconds(9));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(a.isLeader()) << "within the renew deadline";
  EXPECT_EQ(stopped, 0);
  clock.set(acquired + seconds(10));
  EXPECT_FALSE(a.isLeader()) << "past the renew deadline, whatever the renewal in flight does";
  EXPECT_TRUE(eventually([&] { return stopped == 1; }))
      << "onStoppedLeading waited for the hung renewal";
  {
    std::lock_guard<std::mutex> lock(store.mu);
    // The Lease still names a, renewed when it was acquired: no standby could take it before
    // acquired + 15 s, five seconds after a stopped acting.
    EXPECT_EQ(store.lease->holderIdentity, "a");
    EXPECT_EQ(store.lease->renewTime, acquired);
    EXPECT_EQ(store.hung, 1);
    store.hanging = false;
  }
  store.changed.notify_all();
  a.stop();
  EXPECT_EQ(stopped, 1) << "leadership ends once";
  EXPECT_EQ(store.lease->holderIdentity, "a") << "a lost Lease is not released";
}

TEST(LeaderElection, HealthzFailsAHolderPastTheLeaseDurationPlus20sWithoutARenewal) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  LeaderElector a(
      store, config("a"), clock, Logger::discard(), [] {}, [] {});
  LeaderElector b(
      store, config("b"), clock, Logger::discard(), [] {}, [] {});
  EXPECT_TRUE(a.check(kLeaderHealthzTolerance).ok()) << "not holding yet";
  EXPECT_FALSE(a.lastRenewal());
  ASSERT_TRUE(a.tryAcquireOrRenew());
  EXPECT_EQ(a.lastRenewal(), clock.now());
  ASSERT_FALSE(b.tryAcquireOrRenew());
  // As a holder whose renewals stopped without its deadline ending anything (a deadlock).
  clock.step(seconds(15) + kLeaderHealthzTolerance);
  EXPECT_TRUE(a.check(kLeaderHealthzTolerance).ok()) << "exactly at the limit";
  clock.step(seconds(1));
  const Status failed = a.check(kLeaderHealthzTolerance);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message,
            "failed election to renew leadership on the lease: last renewed 36s ago (limit 35s)");
  EXPECT_TRUE(b.check(kLeaderHealthzTolerance).ok()) << "a standby is never failed";
  ASSERT_TRUE(a.tryAcquireOrRenew());
  EXPECT_TRUE(a.check(kLeaderHealthzTolerance).ok()) << "renewed";
  EXPECT_EQ(a.lastRenewal(), clock.now());
}

TEST(LeaderElection, AHolderThatReleasedTheLeasePassesHealthz) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  LeaderElector a(
      store, config("a"), clock, Logger::discard(), [] {}, [] {});
  a.start();
  ASSERT_TRUE(eventually([&] { return a.isLeader(); }));
  a.stop();
  ASSERT_EQ(store.lease->holderIdentity, "");
  clock.step(seconds(60));
  EXPECT_TRUE(a.check(kLeaderHealthzTolerance).ok());
}

TEST(LeaderElection, KnowsTheLeaseTransitionsAsLastSeen) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  LeaderElector a(
      store, config("a"), clock, Logger::discard(), [] {}, [] {});
  LeaderElector b(
      store, config("b"), clock, Logger::discard(), [] {}, [] {});
  EXPECT_FALSE(a.leaseTransitions()) << "absent until seen";
  ASSERT_TRUE(a.tryAcquireOrRenew());
  EXPECT_EQ(a.leaseTransitions(), 0);
  ASSERT_FALSE(b.tryAcquireOrRenew());
  EXPECT_EQ(b.leaseTransitions(), 0) << "a standby that read it";
  clock.step(seconds(16));
  ASSERT_TRUE(b.tryAcquireOrRenew());
  EXPECT_EQ(b.leaseTransitions(), 1) << "its own acquisition";
  EXPECT_FALSE(a.tryAcquireOrRenew());
  EXPECT_EQ(a.leaseTransitions(), 1) << "the old holder read it back";
}

TEST(LeaderElection, AStandbyLearnsTheLeaseTransitionsFromItsWatch) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  store.lease = LeaseRecord{"a", 15, clock.now(), clock.now(), 7, ""};
  store.lease->resourceVersion = std::to_string(++store.version);
  store.failing = true;  // its reads fail: only the watch shows the Lease
  LeaderElector b(
      store, config("b"), clock, Logger::discard(), [] {}, [] {});
  b.start();
  ASSERT_TRUE(eventually([&] { return b.leaseTransitions() == 7; }));
  b.stop();
}

}  // namespace
}  // namespace hpa::leaderelection
