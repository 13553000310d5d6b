#include "replicacalc/decision_rules.h"

#include <fmt/format.h>

#include <algorithm>

#include "replicacalc/feature_gates.h"

namespace hpa::replicacalc {
namespace {

using R = DecisionRules;

// Which release brought each rule. Releases marked inferred are where upstream's history places
// the change without a changelog, gate table or maintainer saying so (docs/behavior.md).
constexpr RuleChange kRuleChanges[] = {
    {"containerResourceMetrics", &R::containerResourceMetrics, 20, "#90691", false},
    {"stabilizationEnvelope", &R::stabilizationEnvelope, 21, "#97348", true},
    {"partialInvalidMetricsBlockScaleDown", &R::partialInvalidMetricsBlockScaleDown, 21, "#99514",
     false},
    {"plainMetricDirectionGuard", &R::plainMetricDirectionGuard, 21, "#89465", true},
    {"policyPeriodCountsBothDirections", &R::policyPeriodCountsBothDirections, 25, "#109058", true},
    {"missingPodsAtTargetUtilization", &R::missingPodsAtTargetUtilization, 26, "#112178", true},
    {"containerResourceMetricName", &R::containerResourceMetricName, 27, "#116045", true},
    {"containerMetricsGateChecked", &R::containerMetricsGateChecked, 27, "#116043", false},
    {"exactRatioLeavesMissingPodsOut", &R::exactRatioLeavesMissingPodsOut, 28, "#117845", true},
    {"sidecarRequests", &R::sidecarRequests, 29, "#120001", false},
    {"missingContainerIsMissingPod", &R::missingContainerIsMissingPod, 32, "#127193", true},
    {"inclusiveTolerance", &R::inclusiveTolerance, 33, "#130797", false},
    {"podLevelRequests", &R::podLevelRequests, 34, "#132430", true},
    {"scaledToZeroCondition", &R::scaledToZeroCondition, 36, "#135118", true},
};

}  // namespace

std::string DecisionRules::release() const { return fmt::format("1.{}", minor); }

std::span<const RuleChange> ruleChanges() { return kRuleChanges; }

DecisionRules decisionRulesOf(int minor) {
  DecisionRules rules;
  rules.minor = minor;
  for (const auto& change : kRuleChanges) rules.*change.rule = minor >= change.sinceMinor;
  rules.gates = defaultFeatureGates(minor);
  return rules;
}

int rulesMinorBeside(int serverMinor) {
  return std::clamp(serverMinor, kOldestRulesMinor, kNewestRulesMinor);
}

}  // namespace hpa::replicacalc
