#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "controller/horizontal_controller.h"
#include "daemon/history_persistence.h"
#include "daemon/prometheus_observer.h"
#include "daemon/written_versions.h"
#include "informer/informer.h"
#include "metricsclient/rest_metrics_client.h"
#include "workqueue/rate_limiter.h"
#include "workqueue/rate_limiting_queue.h"

namespace hpa::daemon {

struct RunnerSettings {
  Duration syncPeriod = std::chrono::seconds(15);
  int workers = 5;
  bool persistHistory = true;
};

// The daemon's control loop around the reconcile, as upstream's HorizontalController.Run:
// informer handlers enqueue HPA keys (new HPAs, spec changes and control annotation changes at
// once, everything else on the sync period), workers reconcile each key (never two at once) and
// requeue it after its sync period (the global one, or the HPA's own from its controls) unless
// it was deleted. Workers only reconcile while this instance leads; on gaining leadership every
// HPA's persisted history is restored and every key is queued.
class HpaRunner {
 public:
  HpaRunner(controller::HorizontalController& controller, informer::Informer<api::HorizontalPodAutoscaler>& hpas,
            metricsclient::RestMetricsClient& metrics, HistoryPersister* persister, PrometheusObserver& observer,
            WrittenVersions& written, Clock& clock, Logger logger, RunnerSettings settings);
  ~HpaRunner();

  // Registers the handlers; call before the informers start.
  void registerHandlers();
  void startWorkers();
  void startedLeading();
  void stoppedLeading();
  // Stop taking work, let in-flight reconciles finish, join the workers; if leading, persist
  // every history that changed since it was last written (the successor starts from it).
  void shutDown();

  bool leading() const { return leading_.load(); }
  std::size_t queueDepth() const { return queue_.len(); }

 private:
  void worker();
  void ticker();
  void restoreHistory(const api::HorizontalPodAutoscaler& hpa);
  void forgetKey(const std::string& key);

  controller::HorizontalController& controller_;
  informer::Informer<api::HorizontalPodAutoscaler>& hpas_;
  metricsclient::RestMetricsClient& metrics_;
  HistoryPersister* persister_;
  PrometheusObserver& observer_;
  WrittenVersions& written_;
  Clock& clock_;
  Logger logger_;
  RunnerSettings settings_;
  workqueue::FixedIntervalRateLimiter* intervals_ = nullptr;  // owned by queue_
  workqueue::RateLimitingQueue queue_;
  std::atomic<bool> leading_{false};
  // Set by shutDown() when it stops a leader: reconciles still in flight may persist their
  // history (we still hold the Lease until the elector releases it after us).
  std::atomic<bool> handingOver_{false};
  std::mutex mu_;
  std::condition_variable_any cv_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::thread ticker_;
};

}  // namespace hpa::daemon
