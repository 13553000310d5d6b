#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "controller/history_annotation.h"
#include "controller/horizontal_controller.h"
#include "controller/reconcile_observer.h"
#include "controller/run_loop_watchdog.h"
#include "controller/staleness_guard.h"
#include "controls/last_decision.h"
#include "informer/informer.h"
#include "workqueue/rate_limiter.h"
#include "workqueue/rate_limiting_queue.h"

namespace hpa::controller {

struct RunLoopSettings {
  Duration syncPeriod = std::chrono::seconds(15);
  int workers = 5;
  // Called once per sync period on the loop's own thread (the daemon forgets the custom metrics
  // API version then, as upstream does).
  std::function<void()> everySyncPeriod;
  // Where the decisions of HPAs that record them go (null: not recorded, as in shadow mode).
  controls::DecisionPublisher* decisions = nullptr;
};

// The daemon's control loop around the reconcile, as upstream's HorizontalController.Run:
// informer handlers enqueue HPA keys (new HPAs, spec changes and control annotation changes at
// once, everything else on the sync period), workers reconcile each key (never two at once) and
// requeue it after its sync period (the global one, or the HPA's own from its controls) unless
// it was deleted. Workers only reconcile while this instance leads; on gaining leadership every
// HPA's persisted history is restored and every key is queued.
class RunLoop {
 public:
  // `persister` may be null (history persistence off).
  RunLoop(HorizontalController& controller, informer::Informer<api::HorizontalPodAutoscaler>& hpas,
          HistoryPersister* persister, RunLoopObserver& observer, StalenessGuard& stalenessGuard,
          Clock& clock, Logger logger, RunLoopSettings settings);
  ~RunLoop();

  // Registers the handlers; call before the informers start.
  void registerHandlers();
  void startWorkers();
  void startedLeading();
  void stoppedLeading();
  // Stop taking work, let in-flight reconciles finish, join the workers; if leading, persist
  // every history that changed since it was last written (the successor starts from it).
  void shutDown();

  bool leading() const { return leading_.load(); }
  // When the current leadership term began (startedLeading); nullopt while not leading.
  std::optional<Time> leadingSince() const;
  std::size_t queueDepth() const { return queue_.len(); }
  // Keys a worker is processing; with queueDepth() zero as well, every due key has been
  // reconciled and booked for its next sync.
  std::size_t keysInFlight() const { return queue_.inFlight(); }
  // How long the loop has gone without progress (RunLoopWatchdog), leading or not.
  Duration stalledFor() const { return watchdog_.stalledFor(queue_.waitingSince()); }
  // /healthz's run-loop check: fails while this instance leads and the loop has been stalled for
  // longer than stallThreshold(sync period). A standby's workers only cycle keys; restarting it
  // would help nothing.
  Status liveness() const;

 private:
  void worker(int index);
  // A worker's phases for one key: back into the queue for its next turn; skipped because the
  // cache has not seen our own last status write; reconciled, logged, persisted and requeued.
  void requeue(const std::string& key);
  bool readsStaleCache(const std::string& key);
  void reconcile(const std::string& key);
  void logDecision(const std::string& key, const report::ReconcileReport& report) const;
  void ticker();
  void restoreHistory(const api::HorizontalPodAutoscaler& hpa);
  // Hands the decision to settings_.decisions for an HPA that records it (or carries a stale one).
  void publishDecision(const std::string& key, const report::ReconcileReport& report);
  void forgetKey(const std::string& key);
  void endTerm();

  HorizontalController& controller_;
  informer::Informer<api::HorizontalPodAutoscaler>& hpas_;
  HistoryPersister* persister_;
  RunLoopObserver& observer_;
  StalenessGuard& stalenessGuard_;
  Clock& clock_;
  Logger logger_;
  RunLoopSettings settings_;
  workqueue::FixedIntervalRateLimiter* intervals_ = nullptr;  // owned by queue_
  workqueue::RateLimitingQueue queue_;
  RunLoopWatchdog watchdog_;
  std::atomic<bool> leading_{false};
  mutable std::mutex termMu_;
  std::optional<Time> leadingSince_;  // guarded by termMu_
  // Set by shutDown() when it stops a leader: reconciles still in flight may persist their
  // history (we still hold the Lease until the elector releases it after us).
  std::atomic<bool> handingOver_{false};
  std::mutex mu_;
  std::condition_variable_any cv_;
  bool stopping_ = false;
  // Keys whose last reconcile was skipped because the HPA cache had not caught up with our own
  // status write: the next event of the HPA (the cache catching up) queues it at once, instead
  // of a sync period later.
  std::mutex staleMu_;
  std::unordered_set<std::string> skippedAsStale_;
  std::vector<std::thread> workers_;
  std::thread ticker_;
};

}  // namespace hpa::controller
