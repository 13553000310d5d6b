#include "replay/simulated_workload.h"

#include <fmt/format.h>

#include <algorithm>

namespace hpa::replay {

bool isReady(const api::Pod& pod) { return pod.ready && pod.ready->status == "True"; }

SimulatedWorkload::SimulatedWorkload(Spec spec, Time start) : spec_(std::move(spec)) {
  const Time started = start - spec_.initialPodAge;
  for (std::int32_t i = 0; i < spec_.replicas; ++i) pods_.push_back(newPod(started, start));
  replicas_ = spec_.replicas;
}

std::shared_ptr<const api::Pod> SimulatedWorkload::newPod(Time started, Time now) {
  api::Pod pod = spec_.podTemplate;
  pod.name = fmt::format("{}-{}", spec_.podNamePrefix, nextIndex_++);
  pod.namespace_ = spec_.namespace_;
  pod.phase = api::kPodRunning;
  pod.deletionTimestamp.reset();
  // Created and started at once: the forecast control reads a pod's start-up as its creation to
  // Ready, as in a cluster.
  pod.creationTimestamp = started;
  pod.startTime = started;
  const Time readyAt = started + spec_.readinessDelay;
  pod.ready = readyAt <= now ? api::PodReadyCondition{"True", readyAt}
                             : api::PodReadyCondition{"False", started};
  return std::make_shared<const api::Pod>(std::move(pod));
}

void SimulatedWorkload::advance(Time now) {
  for (auto& p : pods_) {
    if (isReady(*p) || !p->startTime) continue;
    const Time readyAt = *p->startTime + spec_.readinessDelay;
    if (readyAt > now) continue;
    api::Pod ready = *p;
    ready.ready = api::PodReadyCondition{"True", readyAt};
    p = std::make_shared<const api::Pod>(std::move(ready));
  }
}

void SimulatedWorkload::scale(std::int32_t replicas, Time now) {
  replicas_ = std::max(replicas, 0);
  while (static_cast<std::int32_t>(pods_.size()) < replicas_) pods_.push_back(newPod(now, now));
  while (static_cast<std::int32_t>(pods_.size()) > replicas_) {
    // The ReplicaSet's preference: a pod that is not Ready, else the newest.
    auto victim =
        std::find_if(pods_.rbegin(), pods_.rend(), [](const auto& p) { return !isReady(*p); });
    if (victim == pods_.rend()) victim = pods_.rbegin();
    pods_.erase(std::next(victim).base());
  }
}

int SimulatedWorkload::readyPods() const {
  return static_cast<int>(
      std::count_if(pods_.begin(), pods_.end(), [](const auto& p) { return isReady(*p); }));
}

}  // namespace hpa::replay
