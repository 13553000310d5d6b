#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/time.h"
#include "sim/observed_pod.h"

namespace hpa::sim {

struct PodTiming {
  Duration startDelay{0};      // from creation to Running
  Duration readinessDelay{0};  // from Running to Ready
};

// What the kubelet does next for one pod, decided from the pod as last seen and the time alone,
// so a pod is looked at again only when it changes or when a delay it waits for runs out.
struct PodPlan {
  enum class Action {
    None,       // nothing to write now
    Delete,     // confirm a deletion (grace period 0), as a kubelet does once containers stop
    Bind,       // schedule it on a node (the pod has no nodeName)
    SetStatus,  // write phase Running, startTime, conditions and container statuses
  };
  Action action = Action::None;
  // For SetStatus: the status to write.
  Time startTime{};
  bool ready = false;
  // Look at the pod again after this long (the start or readiness delay still running).
  std::optional<Duration> recheckAfter;
};

PodPlan planPod(const ObservedPod& pod, Time now, const PodTiming& timing);

// The merge patch of /status for a SetStatus plan.
nlohmann::json statusPatch(const ObservedPod& pod, const PodPlan& plan, Duration readinessDelay);

}  // namespace hpa::sim
