#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "replicacalc/decision_rules.h"

namespace hpa::replicacalc {

// When kube-controller-manager knows a feature gate that changes HPA decisions, when it defaults
// to on, and when it is GA (locked on: kube-controller-manager refuses to turn it off).
struct FeatureGateHistory {
  std::string_view name;
  bool FeatureGates::*gate;
  int sinceMinor;    // the first release that knows it
  int onSinceMinor;  // the first release where it defaults to on (0: none up to kNewestRulesMinor)
  int lockedSinceMinor;  // the first release where it is GA and locked on (0: none)
};
std::span<const FeatureGateHistory> hpaFeatureGates();
const FeatureGateHistory* findFeatureGate(std::string_view name);

// The gates as kube-controller-manager 1.<minor> sets them by default (a gate it does not know
// yet is off).
FeatureGates defaultFeatureGates(int minor);

// `rules` with the gates `given` (name, value; kube-controller-manager's --feature-gates, in
// order) applied. A gate hpa-controller does not decide by, or one the release does not know, is
// ignored and named in `ignored`, one sentence each; turning a gate the release has locked off
// is an error, as kube-controller-manager makes it.
Result<DecisionRules> withFeatureGates(DecisionRules rules,
                                       const std::vector<std::pair<std::string, bool>>& given,
                                       std::vector<std::string>& ignored);

}  // namespace hpa::replicacalc
