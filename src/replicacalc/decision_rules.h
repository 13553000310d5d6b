#pragma once

#include <span>
#include <string>
#include <string_view>

namespace hpa::replicacalc {

// The kube-controller-manager releases whose HPA decisions hpa-controller can make: 1.18 to 1.37,
// each as its latest patch release decides.
inline constexpr int kOldestRulesMinor = 18;
inline constexpr int kNewestRulesMinor = 37;

// kube-controller-manager's feature gates that change what the HPA controller decides, as set
// (a release's defaults, or --feature-gates). feature_gates.h says when each exists and locks.
struct FeatureGates {
  bool hpaContainerMetrics = true;       // HPAContainerMetrics: ContainerResource metrics
  bool hpaConfigurableTolerance = true;  // HPAConfigurableTolerance: spec.behavior.*.tolerance
  bool hpaScaleToZero = true;     // HPAScaleToZero: minReplicas 0, the ScaledToZero condition
  bool podLevelResources = true;  // PodLevelResources: pod-level requests for utilization
  bool hpaGeneration = true;      // HPAGeneration: status.observedGeneration is written
  bool operator==(const FeatureGates&) const = default;
};

// Within the tolerance, the per-pod (AverageValue) paths of Object and External metrics keep the
// scale's status.replicas, as upstream does through 1.37; during a rolling update status counts
// the surge pods, so keeping it grows spec by the surge (kubernetes#138505). `Spec` keeps
// spec.replicas instead (kubernetes#141134); the usage ratio is status's either way.
enum class WithinToleranceKeep {
  Status,
  Spec,
};

// The rules of one kube-controller-manager release where releases decide differently
// (--decision-rules). Each rule is a field that is true from the release that brought it on
// (ruleChanges() names the release and the upstream change); a default-constructed value is the
// newest release's rules with its default gates. docs/behavior.md ("Rules per release") says
// what each changed, and which releases are inferred rather than confirmed.
struct DecisionRules {
  int minor = kNewestRulesMinor;  // kube-controller-manager 1.<minor>

  bool containerResourceMetrics = true;             // the ContainerResource metric type exists
  bool stabilizationEnvelope = true;                // behavior: both windows bound the result
  bool partialInvalidMetricsBlockScaleDown = true;  // a failed metric holds a scale-down back
  bool plainMetricDirectionGuard = true;            // plain metrics: no count against the ratio
  bool policyPeriodCountsBothDirections = true;     // a policy period starts from both changes
  bool missingPodsAtTargetUtilization = true;       // scale-down: missing at max(100, target) %
  bool containerResourceMetricName = true;          // "... container resource utilization ..."
  bool containerMetricsGateChecked = true;          // the controller refuses it with the gate off
  bool exactRatioLeavesMissingPodsOut = true;       // a ratio of exactly 1 assumes nothing
  bool sidecarRequests = true;                      // restartable init containers' requests count
  bool missingContainerIsMissingPod = true;         // else the metric fails
  bool inclusiveTolerance = true;                   // 1 - down <= r <= 1 + up, not |1 - r| <= t
  bool podLevelRequests = true;                     // with gate PodLevelResources
  bool scaledToZeroCondition = true;                // with gate HPAScaleToZero
  // Per-pod Object/External targets keep spec.replicas within the tolerance, not status's
  // (kubernetes#141134): no release through 1.37 has it, so it is false and not in ruleChanges()
  // until a release merges it; hpa-controller.io/within-tolerance-keep turns it on per HPA.
  bool perPodWithinToleranceKeepsSpec = false;
  FeatureGates gates{};

  // spec.behavior's tolerances are read (the field exists and its gate is on).
  bool behaviorTolerances() const { return inclusiveTolerance && gates.hpaConfigurableTolerance; }
  // Pod-level requests are a pod's request when no container is named.
  bool usesPodLevelRequests() const { return podLevelRequests && gates.podLevelResources; }
  // "1.20".
  std::string release() const;
  bool operator==(const DecisionRules&) const = default;
};

// One rule that changed: from which release, by which upstream change, and whether that release
// is confirmed by upstream's own records or inferred from where the change sits in its history.
struct RuleChange {
  std::string_view name;  // as the field is named, for tests and messages
  bool DecisionRules::*rule;
  int sinceMinor;
  std::string_view pullRequest;  // kubernetes/kubernetes#...
  bool inferred;
};
std::span<const RuleChange> ruleChanges();

// The rules of kube-controller-manager 1.<minor> (kOldestRulesMinor..kNewestRulesMinor) with
// that release's default feature gates.
DecisionRules decisionRulesOf(int minor);

// The release whose rules apply beside an API server of 1.<serverMinor>: that one, the oldest
// known below it, the newest above.
int rulesMinorBeside(int serverMinor);

}  // namespace hpa::replicacalc
