#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/log.h"
#include "kube/rest_client.h"
#include "sim/load_model.h"
#include "sim/metrics_api.h"

namespace hpa::sim {

struct LifecycleSettings {
  std::vector<std::string> namespaces;
  Duration startDelay = std::chrono::seconds(1);
  Duration readinessDelay = std::chrono::seconds(2);
  int nodes = 1;
};

// What a kubelet and a scheduler would do for the watched namespaces: fake Nodes, binding of
// unscheduled pods, Running/Ready status after the start and readiness delays, and the final
// deletion of pods being deleted. One sync() pass per call; never throws, logs API errors.
class PodLifecycle {
 public:
  PodLifecycle(kube::RestClient& client, Clock& clock, Logger logger, LifecycleSettings settings)
      : client_(client), clock_(clock), logger_(std::move(logger)), settings_(std::move(settings)) {}

  Status registerNodes();
  void sync();
  // The pods as of the last sync (for the metrics APIs).
  std::vector<SimPod> pods() const;

 private:
  void syncPod(const nlohmann::json& pod);

  kube::RestClient& client_;
  Clock& clock_;
  Logger logger_;
  LifecycleSettings settings_;
  mutable std::mutex mu_;
  std::vector<SimPod> pods_;
  int nextNode_ = 0;
};

// APIService registrations pointing the aggregator at localhost:port (ExternalName Services in
// kube-system), created or replaced at start and removed at exit.
Status registerApiServices(kube::RestClient& client, int port);
void unregisterApiServices(kube::RestClient& client);

}  // namespace hpa::sim
