#include "daemon/leader_election.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"

namespace hpa::daemon {
namespace {

using std::chrono::seconds;

// One Lease with optimistic concurrency, shared by several electors.
class FakeLeaseStore final : public LeaseStore {
 public:
  Result<std::optional<LeaseRecord>> get() override {
    std::lock_guard<std::mutex> lock(mu);
    if (failing) return Error{"etcd unavailable", 500, ""};
    return lease;
  }
  Status create(const LeaseRecord& r) override {
    std::lock_guard<std::mutex> lock(mu);
    if (lease) return Error{"already exists", 409, "AlreadyExists"};
    lease = r;
    lease->resourceVersion = std::to_string(++version);
    return Status();
  }
  Status update(const LeaseRecord& r) override {
    std::lock_guard<std::mutex> lock(mu);
    if (failing) return Error{"etcd unavailable", 500, ""};
    if (!lease || lease->resourceVersion != r.resourceVersion) return Error{"conflict", 409, "Conflict"};
    lease = r;
    lease->resourceVersion = std::to_string(++version);
    return Status();
  }
  std::mutex mu;
  std::optional<LeaseRecord> lease;
  int version = 0;
  bool failing = false;
};

LeaderElectionConfig config(const std::string& id) { return {id, seconds(15), seconds(10), seconds(2)}; }

TEST(LeaderElection, OnlyOneHolderUntilTheLeaseExpiresUnobserved) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  LeaderElector a(store, config("a"), clock, Logger::discard(), [] {}, [] {});
  LeaderElector b(store, config("b"), clock, Logger::discard(), [] {}, [] {});
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
  LeaderElector a(store, config("a"), clock, Logger::discard(), [&] { ++started; }, [&] { ++stopped; });
  a.start();
  for (int i = 0; i < 2000 && !a.isLeader(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(a.isLeader());
  EXPECT_EQ(started, 1);
  a.stop();
  EXPECT_EQ(stopped, 1);
  EXPECT_EQ(store.lease->holderIdentity, "");  // released: a successor need not wait
  LeaderElector b(store, config("b"), clock, Logger::discard(), [] {}, [] {});
  EXPECT_TRUE(b.tryAcquireOrRenew());
}

TEST(LeaderElection, LosesLeadershipWhenRenewalsFailPastTheDeadline) {
  hpa::testing::FakeClock clock;
  FakeLeaseStore store;
  std::atomic<int> stopped{0};
  LeaderElector a(store, config("a"), clock, Logger::discard(), [] {}, [&] { ++stopped; });
  a.start();
  for (int i = 0; i < 2000 && !a.isLeader(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(a.isLeader());
  {
    std::lock_guard<std::mutex> lock(store.mu);
    store.failing = true;
  }
  for (int i = 0; i < 20 && a.isLeader(); ++i) {
    for (int j = 0; j < 2000 && clock.waiterCount() == 0; ++j) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    clock.step(seconds(2));
    for (int j = 0; j < 50 && clock.waiterCount() > 0 && a.isLeader(); ++j) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  for (int i = 0; i < 2000 && a.isLeader(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_FALSE(a.isLeader());
  EXPECT_EQ(stopped, 1);
  a.stop();
}

}  // namespace
}  // namespace hpa::daemon
