#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "common/log.h"
#include "informer/informer.h"
#include "kube/rest_client.h"
#include "kube/rest_list_watch.h"
#include "sim/observed_pod.h"
#include "sim/pod_index.h"
#include "sim/pod_plan.h"
#include "workqueue/rate_limiting_queue.h"

namespace hpa::sim {

struct LifecycleSettings {
  std::vector<std::string> namespaces;
  Duration startDelay = std::chrono::seconds(1);
  Duration readinessDelay = std::chrono::seconds(2);
  int nodes = 1;
  int workers = 8;  // pods written to at once (each write is one blocking request)
};

// What a kubelet and a scheduler would do for the watched namespaces: binding of unscheduled
// pods to the fake nodes, Running/Ready status after the start and readiness delays, and the
// final deletion of pods being deleted. Driven by a pod watch per namespace: a changed pod is
// queued, workers decide its next step (planPod) and write it; a pod waiting for a delay is
// queued again when the delay runs out. Keeps the PodIndex the metrics APIs read current.
// API errors are logged and retried with back-off; it never throws.
class PodLifecycle {
 public:
  PodLifecycle(kube::RestClient& client, Clock& clock, Logger logger, LifecycleSettings settings,
               PodIndex& index);
  ~PodLifecycle();
  PodLifecycle(const PodLifecycle&) = delete;
  PodLifecycle& operator=(const PodLifecycle&) = delete;

  void start();
  // Stops the watches and the workers (a write in flight completes).
  void stop();
  // Every namespace's pods have been listed once.
  bool hasSynced() const;

 private:
  using Informer = informer::Informer<ObservedPod>;

  void observe(const std::shared_ptr<const ObservedPod>& previous,
               const std::shared_ptr<const ObservedPod>& pod);
  void gone(const std::shared_ptr<const ObservedPod>& pod);
  void work();
  void process(const std::string& key);
  Status execute(const ObservedPod& pod, const PodPlan& plan);
  std::string actedOnVersion(const std::string& key);
  void rememberActedOn(const std::string& key, const std::string& resourceVersion);
  void forgetActedOn(const std::string& key);

  kube::RestClient& client_;
  Clock& clock_;
  Logger logger_;
  const LifecycleSettings settings_;
  PodIndex& index_;
  workqueue::RateLimitingQueue queue_;
  std::map<std::string, std::unique_ptr<kube::RestListWatch>> sources_;  // by namespace
  std::map<std::string, std::unique_ptr<Informer>> informers_;           // by namespace
  std::vector<std::thread> workers_;
  std::atomic<unsigned> nextNode_{0};
  // The resourceVersion each pod had when its last write succeeded: until the watch brings a
  // newer one, the cache is behind our own write and acting again would repeat it (a second
  // Running patch would restart the pod's clock).
  std::mutex actedOnMu_;
  std::unordered_map<std::string, std::string> actedOn_;
  bool started_ = false;
};

}  // namespace hpa::sim
