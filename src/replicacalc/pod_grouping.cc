#include "replicacalc/pod_grouping.h"

namespace hpa::replicacalc {

const char* podGroupName(PodGroup group) {
  switch (group) {
    case PodGroup::Ready:
      return "Ready";
    case PodGroup::Unready:
      return "Unready";
    case PodGroup::Missing:
      return "Missing";
    case PodGroup::Ignored:
      return "Ignored";
  }
  return "";
}

namespace {

// The cpu-only readiness rules: a pod whose samples may still carry start-up cost is unready.
const char* cpuUnreadyReason(const api::Pod& pod, const PodMetric& metric,
                             const CalculatorOptions& options, Time now) {
  if (!pod.ready) return "no Ready condition";
  if (!pod.startTime) return "no start time";
  const auto& ready = *pod.ready;
  const Time lastTransition = ready.lastTransitionTime.value_or(Time{});
  if (now < *pod.startTime + options.cpuInitializationPeriod) {
    if (ready.status == "False") return "not ready during the cpu initialization period";
    if (metric.timestamp < lastTransition + metric.window) {
      return "no full metric window since it became ready, during the cpu initialization period";
    }
    return nullptr;
  }
  if (ready.status == "False" &&
      *pod.startTime + options.delayOfInitialReadinessStatus > lastTransition) {
    return "not ready and never ready since start";
  }
  return nullptr;
}

}  // namespace

PodGrouping groupPods(const std::vector<const api::Pod*>& pods, const PodMetricsInfo& metrics,
                      std::string_view resource, const CalculatorOptions& options, Time now) {
  PodGrouping out;
  out.pods.reserve(pods.size());
  const bool cpu = resource == "cpu";
  // Listers hand out pods in name order, as the samples are kept: most lookups hit the hint.
  auto hint = metrics.begin();
  for (const api::Pod* pod : pods) {
    auto it = metrics.find(pod->name, hint);
    const PodMetric* sample = nullptr;
    if (it != metrics.end()) {
      sample = &it->second;
      hint = std::next(it);
    }
    GroupedPod g{pod, PodGroup::Ready, "ready", sample};
    if (pod->deletionTimestamp) {
      g = {pod, PodGroup::Ignored, "being deleted", sample};
    } else if (pod->phase == api::kPodFailed) {
      g = {pod, PodGroup::Ignored, "phase Failed", sample};
    } else if (pod->phase == api::kPodPending) {
      g = {pod, PodGroup::Unready, "phase Pending", sample};
    } else if (!sample) {
      g = {pod, PodGroup::Missing, "no metric", nullptr};
    } else if (cpu) {
      if (const char* reason = cpuUnreadyReason(*pod, *sample, options, now)) {
        g = {pod, PodGroup::Unready, reason, sample};
      }
    }
    switch (g.group) {
      case PodGroup::Ready:
        ++out.readyPodCount;
        break;
      case PodGroup::Unready:
        ++out.unreadyCount;
        break;
      case PodGroup::Missing:
        ++out.missingCount;
        break;
      case PodGroup::Ignored:
        ++out.ignoredCount;
        break;
    }
    out.pods.push_back(g);
  }
  return out;
}

}  // namespace hpa::replicacalc
