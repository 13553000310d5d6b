#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/result.h"

namespace hpa::controller {

// A stall shorter than this never fails the liveness, however short the sync period: a reconcile
// waits on several API requests in a row (the scale, the metrics, the status), each with a
// timeout of its own, and a slow API server must not get the leader restarted.
inline constexpr Duration kMinStallThreshold = std::chrono::minutes(2);
// Every key is due once per sync period; a loop that has made no progress for this many of them
// is not going to.
inline constexpr int kStallThresholdSyncPeriods = 4;

// The stall past which a leading run loop fails /healthz: the larger of kMinStallThreshold and
// kStallThresholdSyncPeriods sync periods (--horizontal-pod-autoscaler-sync-period).
Duration stallThreshold(Duration syncPeriod);

// How long the run loop has gone without progress. The loop is stalled for
//   s = max(the age of the oldest key a worker took and has not finished with,
//           how long keys have waited for a worker with none taken
//           (workqueue::Queue::waitingSince))
// and s = 0 when no key is held and none waits: an idle loop (no HPAs, or none due) is not
// stalled. The first catches a worker stuck inside one reconcile; the second, workers that no
// longer take keys at all (keys pile up in the queue). Thread-safe.
class RunLoopWatchdog {
 public:
  RunLoopWatchdog(const Clock& clock, int workers);

  // A worker's hold on one key, from the take until it is destroyed (after the worker's done()).
  class Hold {
   public:
    Hold(Hold&& other) noexcept : watchdog_(other.watchdog_), worker_(other.worker_) {
      other.watchdog_ = nullptr;
    }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    Hold& operator=(Hold&&) = delete;
    ~Hold();

   private:
    friend class RunLoopWatchdog;
    Hold(RunLoopWatchdog& watchdog, int worker) : watchdog_(&watchdog), worker_(worker) {}
    RunLoopWatchdog* watchdog_;
    int worker_;
  };
  // Worker `worker` (0 to workers - 1) took `key`.
  Hold took(int worker, const std::string& key);

  // s, now; `keysWaitingSince` is the queue's waitingSince().
  Duration stalledFor(std::optional<Time> keysWaitingSince) const;
  // Fails when s exceeds `threshold`, saying which part stalled: the key held longest and for how
  // long, or how many keys (`readyKeys`) have waited since when.
  Status check(std::optional<Time> keysWaitingSince, std::size_t readyKeys,
               Duration threshold) const;

 private:
  struct Slot {
    std::optional<Time> since;  // when the worker took its key; nullopt while it holds none
    std::string key;
  };
  // The slot held longest (null when none is held); mu_ held.
  const Slot* oldestHoldLocked() const;

  const Clock& clock_;
  mutable std::mutex mu_;
  std::vector<Slot> slots_;  // one per worker, guarded by mu_
};

}  // namespace hpa::controller
