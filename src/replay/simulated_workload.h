#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/pod.h"
#include "common/time.h"

namespace hpa::replay {

// The pods of the scale target, following the replica count the controller sets, as a
// ReplicaSet and the kubelet would: a new pod is created and Running (startTime set) at once and
// turns Ready `readinessDelay` later, its Ready condition's lastTransitionTime then, so the
// controller's cpu-initialization and readiness rules see what they see in a cluster. Scaling
// down removes pods as a ReplicaSet picks them: not-Ready before Ready, newest first.
class SimulatedWorkload {
 public:
  struct Spec {
    std::string namespace_;
    std::string podNamePrefix;  // pods are "<prefix>-<n>"
    api::Pod podTemplate;       // labels and containers (with requests) of every pod
    std::int32_t replicas = 0;  // at the start; these pods have run for long
    Duration readinessDelay{0};
    Duration initialPodAge{std::chrono::hours(1)};  // how long the initial pods have been running
  };

  SimulatedWorkload(Spec spec, Time start);

  // Pods whose readiness delay has passed turn Ready.
  void advance(Time now);
  // The replica count the controller set; pods are created or removed at once.
  void scale(std::int32_t replicas, Time now);

  std::int32_t replicas() const { return replicas_; }
  const std::vector<std::shared_ptr<const api::Pod>>& pods() const { return pods_; }
  int readyPods() const;

 private:
  std::shared_ptr<const api::Pod> newPod(Time started, Time now);

  Spec spec_;
  std::int32_t replicas_ = 0;
  int nextIndex_ = 0;
  std::vector<std::shared_ptr<const api::Pod>> pods_;  // oldest first
};

// True when the pod's Ready condition is True.
bool isReady(const api::Pod& pod);

}  // namespace hpa::replay
