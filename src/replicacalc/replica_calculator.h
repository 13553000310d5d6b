#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/pod.h"
#include "common/result.h"
#include "common/time.h"
#include "replicacalc/pod_grouping.h"
#include "replicacalc/pod_metrics.h"
#include "replicacalc/tolerances.h"

namespace hpa::replicacalc {

// The replica calculator of upstream's HPA (docs/behavior.md, section 5), as pure functions: the
// caller fetches metrics and lists pods, these decide. Errors carry upstream's texts.

// One listed pod as the calculator saw it (filled when CalculatorOptions::explainPods).
struct PodExplanation {
  std::string name;
  PodGroup group = PodGroup::Ready;
  std::string reason;
  std::optional<std::int64_t> value;         // the pod's sample (milli), if it had one
  std::optional<std::int64_t> request;       // its request (milli), for utilization targets
  std::optional<std::int64_t> assumedValue;  // the value rebalancing assumed for it, if any
  bool operator==(const PodExplanation&) const = default;
};

struct Calculation {
  std::int32_t replicas = 0;                // the proposal
  std::int64_t usage = 0;                   // milli: average per pod, or the object/external value
  std::optional<std::int32_t> utilization;  // percent of request (utilization targets)
  double usageRatio = 0;                    // first-pass ratio to the target
  std::optional<double> rebalancedRatio;    // the ratio after filling missing/unready pods
  std::int32_t readyPodCount = 0;  // pods counted (ready or, for object/external, Running+Ready)
  std::int32_t unreadyPodCount =
      0;  // pod-based metrics: pods left out or assumed (upstream's groups)
  std::int32_t missingPodCount = 0;
  std::int32_t ignoredPodCount = 0;
  Time timestamp;                // of the metrics (zero for object/external Value targets)
  std::string decision;          // one sentence: which rule gave `replicas`
  bool withinTolerance = false;  // kept the current count because the ratio was within tolerance
  std::vector<PodExplanation> pods;
  bool operator==(const Calculation&) const = default;
};

// Resource / ContainerResource with an Utilization target.
struct ResourceUtilizationInput {
  std::int32_t currentReplicas = 0;
  std::int32_t targetUtilization = 0;
  std::string resource;
  std::string container;  // "" for Resource metrics
  Tolerances tolerances;
  std::vector<const api::Pod*> pods;
  PodMetricsInfo metrics;
  Time metricsTimestamp;
  Time now;
  CalculatorOptions options;
};
Result<Calculation> calcResourceUtilizationReplicas(const ResourceUtilizationInput& in);

// Pods metrics (resource "") and Resource AverageValue targets (resource set: cpu readiness rules
// apply).
struct PlainMetricInput {
  std::int32_t currentReplicas = 0;
  std::int64_t targetUsage = 0;  // milli
  std::string resource;
  Tolerances tolerances;
  std::vector<const api::Pod*> pods;
  PodMetricsInfo metrics;
  Time metricsTimestamp;
  Time now;
  CalculatorOptions options;
};
Result<Calculation> calcPlainMetricReplicas(const PlainMetricInput& in);

// Object metric, Value target.
struct ObjectValueInput {
  std::int32_t currentReplicas = 0;
  std::int64_t usage = 0;   // milli
  std::int64_t target = 0;  // milli
  Tolerances tolerances;
  std::vector<const api::Pod*> pods;  // listed by the scale selector
  std::optional<Error> podListError;  // when listing failed (only consulted if needed)
};
Result<Calculation> calcObjectValueReplicas(const ObjectValueInput& in);

// Object metric, AverageValue target.
struct ObjectPerPodInput {
  std::int32_t statusReplicas = 0;
  std::int64_t usage = 0;
  std::int64_t targetAverage = 0;
  Tolerances tolerances;
  std::int32_t specReplicas = 0;  // kept within the tolerance when `keep` is Spec
  WithinToleranceKeep keep = WithinToleranceKeep::Status;
};
Result<Calculation> calcObjectPerPodReplicas(const ObjectPerPodInput& in);

// External metric, Value target: the series are summed.
struct ExternalValueInput {
  std::int32_t specReplicas = 0;
  std::vector<std::int64_t> values;
  std::int64_t target = 0;
  Tolerances tolerances;
  std::vector<const api::Pod*> pods;
  std::optional<Error> podListError;
};
Result<Calculation> calcExternalValueReplicas(const ExternalValueInput& in);

// External metric, AverageValue target.
struct ExternalPerPodInput {
  std::int32_t statusReplicas = 0;
  std::vector<std::int64_t> values;
  std::int64_t targetPerPod = 0;
  Tolerances tolerances;
  std::int32_t specReplicas = 0;  // as ObjectPerPodInput's
  WithinToleranceKeep keep = WithinToleranceKeep::Status;
};
Result<Calculation> calcExternalPerPodReplicas(const ExternalPerPodInput& in);

// The proposal for a usage ratio over `readyPods` when no pod is assumed (nothing missing, no
// unready pod on a scale-up): the current count within tolerance, else ceil(ratio x readyPods).
std::int32_t proposalForRatio(double usageRatio, std::int32_t currentReplicas,
                              std::int32_t readyPods, const Tolerances& tolerances);

// ceil(x) as an int32, saturating at the int32 limits; NaN gives 0 (v1.38's single helper).
std::int32_t ceilToInt32(double x);

}  // namespace hpa::replicacalc
