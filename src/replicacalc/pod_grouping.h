#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "api/pod.h"
#include "replicacalc/decision_rules.h"
#include "replicacalc/flag_defaults.h"
#include "replicacalc/pod_metrics.h"
#include "replicacalc/requests.h"

namespace hpa::replicacalc {

struct CalculatorOptions {
  Duration cpuInitializationPeriod =
      kDefaultCpuInitializationPeriod;  // --horizontal-pod-autoscaler-cpu-initialization-period
  Duration delayOfInitialReadinessStatus =
      kDefaultInitialReadinessDelay;  // --horizontal-pod-autoscaler-initial-readiness-delay
  // Fill Calculation::pods (one entry per listed pod). `explain` wants it; the daemon does not
  // pay for it.
  bool explainPods = false;
  // Which requests utilization is computed against (hpa-controller.io/requests-source).
  RequestsSource requestsSource = RequestsSource::Spec;
  // The release whose rules the calculation follows where releases differ.
  DecisionRules rules{};
};

enum class PodGroup { Ready, Unready, Missing, Ignored };
const char* podGroupName(PodGroup group);

struct GroupedPod {
  const api::Pod* pod = nullptr;
  PodGroup group = PodGroup::Ready;
  const char* reason = "";            // why the pod is in its group (static text)
  const PodMetric* sample = nullptr;  // the pod's entry in the metrics map, if any
};

struct PodGrouping {
  int readyPodCount = 0;
  int unreadyCount = 0;
  int missingCount = 0;
  int ignoredCount = 0;
  std::vector<GroupedPod> pods;  // in listing order, one per listed pod
};

// Upstream's groupPods: deleting or Failed pods are ignored, Pending ones unready, pods without a
// sample missing; for cpu only, readiness and the initialization period decide the rest.
// `resource` is "" for Pods metrics.
PodGrouping groupPods(const std::vector<const api::Pod*>& pods, const PodMetricsInfo& metrics,
                      std::string_view resource, const CalculatorOptions& options, Time now);

}  // namespace hpa::replicacalc
