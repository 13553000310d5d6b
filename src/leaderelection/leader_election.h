#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "kube/rest_client.h"

namespace hpa::leaderelection {

// A coordination.k8s.io/v1 Lease's spec, as leader election reads and writes it.
struct LeaseRecord {
  std::string holderIdentity;
  int leaseDurationSeconds = 0;
  std::optional<Time> acquireTime;
  std::optional<Time> renewTime;
  int leaseTransitions = 0;
  std::string resourceVersion;  // of the Lease object, for optimistic concurrency
  bool operator==(const LeaseRecord&) const = default;
};

// The changes of a Lease as they happen.
class LeaseWatch {
 public:
  virtual ~LeaseWatch() = default;
  // Blocks until the Lease changes and returns it (a deleted Lease comes back as an empty record:
  // no holder, no resourceVersion); nullopt when the watch ended (open another).
  virtual Result<std::optional<LeaseRecord>> next() = 0;
  // Makes a blocked next() return promptly; from any thread.
  virtual void stop() = 0;
};

// Where the Lease lives (an interface so tests need no API server).
class LeaseStore {
 public:
  virtual ~LeaseStore() = default;
  // nullopt: the Lease does not exist.
  virtual Result<std::optional<LeaseRecord>> get() = 0;
  virtual Status create(const LeaseRecord& record) = 0;
  // Fails with a 409 Conflict when record.resourceVersion is stale.
  virtual Status update(const LeaseRecord& record) = 0;
  // Watches the Lease, so a standby sees a release at once instead of at its next retry. A store
  // that cannot watch returns an error; the elector then only polls.
  virtual Result<std::unique_ptr<LeaseWatch>> watch() {
    return Error::of("this lease store cannot watch");
  }
};

class ApiLeaseStore final : public LeaseStore {
 public:
  ApiLeaseStore(kube::RestClient& client, std::string ns, std::string name)
      : client_(client), ns_(std::move(ns)), name_(std::move(name)) {}
  Result<std::optional<LeaseRecord>> get() override;
  Status create(const LeaseRecord& record) override;
  Status update(const LeaseRecord& record) override;
  // A watch of the one Lease (fieldSelector metadata.name: RBAC's resourceNames apply).
  Result<std::unique_ptr<LeaseWatch>> watch() override;

 private:
  kube::RestClient& client_;
  std::string ns_;
  std::string name_;
};

// How long past the lease duration a holder that has not renewed still passes /healthz's
// leaderElection check: kube-controller-manager's leaderelection.NewLeaderHealthzAdaptor(20 *
// time.Second).
inline constexpr Duration kLeaderHealthzTolerance = std::chrono::seconds(20);

struct LeaderElectionConfig {
  std::string identity;
  Duration leaseDuration = std::chrono::seconds(15);  // --leader-elect-lease-duration
  Duration renewDeadline = std::chrono::seconds(10);  // --leader-elect-renew-deadline
  Duration retryPeriod = std::chrono::seconds(2);     // --leader-elect-retry-period
};

// client-go's leader election on a Lease: acquire when the Lease is free or its holder has not
// renewed it within leaseDuration of *our* observation (clock skew between nodes is irrelevant),
// renew every retryPeriod, give up leadership when renewals fail for renewDeadline, and release
// the Lease on stop so a successor need not wait (client-go's ReleaseOnCancel). The renew deadline
// runs from the start of the last renewal that succeeded and ends leadership by the clock alone:
// a renewal whose request hangs (the API server cut off, packets dropped) cannot hold it longer,
// so a leader stops acting before a standby may take the Lease (renewDeadline < leaseDuration,
// as client-go, whose renewal's context ends at the deadline). Unlike client-go,
// a standby also watches the Lease and tries at once when it is released, so a graceful handover
// takes a round trip instead of up to retryPeriod; a holder that vanishes still costs
// leaseDuration.
class LeaderElector {
 public:
  LeaderElector(LeaseStore& store, LeaderElectionConfig config, Clock& clock, Logger logger,
                std::function<void()> onStartedLeading, std::function<void()> onStoppedLeading);
  ~LeaderElector();

  void start();
  // Stops campaigning; if leading, calls onStoppedLeading and releases the Lease. (A renewal in
  // flight is waited for: give the store's requests a timeout.)
  void stop();
  // False from the renew deadline on, even before the elector's threads have noticed.
  bool isLeader() const;

  // One acquire-or-renew attempt (exposed for tests); true when we hold the Lease afterwards.
  bool tryAcquireOrRenew();

  // client-go's LeaderElector.Check, kube-controller-manager's /healthz leaderElection check:
  // fails while the Lease as this elector last saw it names it the holder and its last renewal
  // is older than the lease duration plus `maxTolerableExpiredLease`. The renew deadline should
  // have ended leadership (and the process) long before; something, a deadlock, kept it from
  // doing so. A standby, or a holder that released the Lease, passes. Thread-safe.
  Status check(Duration maxTolerableExpiredLease) const;
  // When this elector last acquired or renewed the Lease (the start of that attempt, the
  // renewTime it wrote); nullopt before the first time. Thread-safe.
  std::optional<Time> lastRenewal() const;
  // spec.leaseTransitions as this elector last saw it: read, written, or shown by its watch;
  // nullopt until it first saw the Lease. Thread-safe.
  std::optional<int> leaseTransitions() const;

 private:
  void run();
  // Waits `d`; false when stopping. With wakeOnRelease, a release seen by the watch ends it early.
  bool sleep(Duration d, bool wakeOnRelease = false);
  void release();
  // The standby's watch on the Lease (its own thread, until leading or stopping).
  void watchForRelease();
  // While leading: ends leadership when the renew deadline passes (its own thread, so that a
  // renewal blocked in the store cannot postpone it).
  void guardDeadline();
  // Moves the renew deadline to `renewalStart` + renewDeadline (a renewal that began then
  // succeeded); false when leadership has ended meanwhile.
  bool extendDeadline(Time renewalStart);
  // Ends leadership once (the guard and the renewing thread may both see the deadline pass).
  void loseLeadership();
  // The run() thread's view of the Lease changed to `record` at `at` (observed_ and what the
  // other threads read of it).
  void observe(const LeaseRecord& record, Time at);
  // `record`, read or written, shows the Lease's transitions.
  void sawTransitions(const LeaseRecord& record) { leaseTransitions_ = record.leaseTransitions; }

  LeaseStore& store_;
  LeaderElectionConfig config_;
  Clock& clock_;
  Logger logger_;
  std::function<void()> onStartedLeading_;
  std::function<void()> onStoppedLeading_;

  std::mutex mu_;
  std::condition_variable_any cv_;
  bool stopping_ = false;              // guarded by mu_
  bool releaseSeen_ = false;           // guarded by mu_
  LeaseWatch* activeWatch_ = nullptr;  // guarded by mu_
  std::atomic<bool> leading_{false};
  std::atomic<bool> ended_{false};  // leadership ended (the deadline passed, or a stop)
  // The renew deadline while leading, as a count of the clock's ticks (read by isLeader()).
  std::atomic<Time::rep> deadline_{0};
  // What check(), lastRenewal() and leaseTransitions() read, written by the elector's threads.
  static constexpr Time::rep kNever = std::numeric_limits<Time::rep>::min();
  static constexpr int kUnseen = -1;
  std::atomic<bool> holding_{false};  // observed_ names us
  std::atomic<Time::rep> lastRenewal_{kNever};
  std::atomic<int> leaseTransitions_{kUnseen};
  // Only the run() thread touches these.
  std::optional<LeaseRecord> observed_;
  Time observedAt_{};
  std::thread thread_;
  std::thread watcher_;
  std::thread guard_;
};

}  // namespace hpa::leaderelection
