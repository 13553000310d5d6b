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
