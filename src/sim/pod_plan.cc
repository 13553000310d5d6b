#include "sim/pod_plan.h"

#include <fmt/format.h>

#include <functional>

namespace hpa::sim {

PodPlan planPod(const ObservedPod& pod, Time now, const PodTiming& timing) {
  PodPlan plan;
  if (pod.deletionTimestamp) {
    plan.action = PodPlan::Action::Delete;
    return plan;
  }
  if (pod.nodeName.empty()) {
    plan.action = PodPlan::Action::Bind;
    return plan;
  }
  const Time created = pod.creationTimestamp.value_or(now);
  if (now < created + timing.startDelay) {
    plan.recheckAfter = created + timing.startDelay - now;
    return plan;
  }
  const Time startTime = pod.startTime.value_or(now);
  const Time readyAt = startTime + timing.readinessDelay;
  const bool ready = now >= readyAt;
  if (!ready) plan.recheckAfter = readyAt - now;
  if (pod.startTime && pod.phase == "Running" && pod.ready == ready) return plan;
  plan.action = PodPlan::Action::SetStatus;
  plan.startTime = startTime;
  plan.ready = ready;
  return plan;
}

nlohmann::json statusPatch(const ObservedPod& pod, const PodPlan& plan, Duration readinessDelay) {
  using nlohmann::json;
  const std::string startText = formatRFC3339(plan.startTime);
  const std::string readyText =
      formatRFC3339(plan.ready ? plan.startTime + readinessDelay : plan.startTime);
  json containerStatuses = json::array();
  for (const auto& c : pod.containers) {
    containerStatuses.push_back({{"name", c.name},
                                 {"image", c.image},
                                 {"imageID", ""},
                                 {"ready", plan.ready},
                                 {"started", true},
                                 {"restartCount", 0},
                                 {"state", {{"running", {{"startedAt", startText}}}}}});
  }
  const char* readyStatus = plan.ready ? "True" : "False";
  const size_t h = std::hash<std::string>{}(pod.name);
  return {
      {"status",
       {{"phase", "Running"},
        {"startTime", startText},
        {"hostIP", "10.0.0.1"},
        {"podIP", fmt::format("10.1.{}.{}", (h >> 8) % 250, h % 250 + 1)},
        {"conditions",
         {{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", startText}},
          {{"type", "Initialized"}, {"status", "True"}, {"lastTransitionTime", startText}},
          {{"type", "ContainersReady"}, {"status", readyStatus}, {"lastTransitionTime", readyText}},
          {{"type", "Ready"}, {"status", readyStatus}, {"lastTransitionTime", readyText}}}},
        {"containerStatuses", containerStatuses}}}};
}

}  // namespace hpa::sim
