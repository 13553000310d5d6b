#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "kube/rest_client.h"

namespace hpa::daemon {

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

// Where the Lease lives (an interface so tests need no API server).
class LeaseStore {
 public:
  virtual ~LeaseStore() = default;
  // nullopt: the Lease does not exist.
  virtual Result<std::optional<LeaseRecord>> get() = 0;
  virtual Status create(const LeaseRecord& record) = 0;
  // Fails with a 409 Conflict when record.resourceVersion is stale.
  virtual Status update(const LeaseRecord& record) = 0;
};

class ApiLeaseStore final : public LeaseStore {
 public:
  ApiLeaseStore(kube::RestClient& client, std::string ns, std::string name)
      : client_(client), ns_(std::move(ns)), name_(std::move(name)) {}
  Result<std::optional<LeaseRecord>> get() override;
  Status create(const LeaseRecord& record) override;
  Status update(const LeaseRecord& record) override;

 private:
  kube::RestClient& client_;
  std::string ns_;
  std::string name_;
};

struct LeaderElectionConfig {
  std::string identity;
  Duration leaseDuration = std::chrono::seconds(15);  // --leader-elect-lease-duration
  Duration renewDeadline = std::chrono::seconds(10);  // --leader-elect-renew-deadline
  Duration retryPeriod = std::chrono::seconds(2);     // --leader-elect-retry-period
};

// client-go's leader election on a Lease: acquire when the Lease is free or its holder has not
// renewed it within leaseDuration of *our* observation (clock skew between nodes is irrelevant),
// renew every retryPeriod, give up leadership when renewals fail for renewDeadline, and release
// the Lease on stop so a successor need not wait.
class LeaderElector {
 public:
  LeaderElector(LeaseStore& store, LeaderElectionConfig config, Clock& clock, Logger logger,
                std::function<void()> onStartedLeading, std::function<void()> onStoppedLeading);
  ~LeaderElector();

  void start();
  // Stops campaigning; if leading, calls onStoppedLeading and releases the Lease.
  void stop();
  bool isLeader() const { return leading_.load(); }

  // One acquire-or-renew attempt (exposed for tests); true when we hold the Lease afterwards.
  bool tryAcquireOrRenew();

 private:
  void run();
  bool sleep(Duration d);  // false when stopping
  void release();

  LeaseStore& store_;
  LeaderElectionConfig config_;
  Clock& clock_;
  Logger logger_;
  std::function<void()> onStartedLeading_;
  std::function<void()> onStoppedLeading_;

  std::mutex mu_;
  std::condition_variable_any cv_;
  bool stopping_ = false;
  std::atomic<bool> leading_{false};
  std::optional<LeaseRecord> observed_;
  Time observedAt_{};
  std::thread thread_;
};

}  // namespace hpa::daemon
