#include "replicacalc/feature_gates.h"

#include <fmt/format.h>

namespace hpa::replicacalc {
namespace {

using G = FeatureGates;

// From kube-controller-manager's feature gate tables (docs/behavior.md, "Rules per release").
// HPAContainerMetrics was removed from the table after 1.31; it stays locked on here, as turning
// it off is refused either way. PodLevelResources and HPAScaleToZero are beta (on, not locked) in
// the newest release known.
constexpr FeatureGateHistory kGates[] = {
    {"HPAContainerMetrics", &G::hpaContainerMetrics, 20, 27, 30},
    {"HPAConfigurableTolerance", &G::hpaConfigurableTolerance, 33, 35, 37},
    {"HPAScaleToZero", &G::hpaScaleToZero, 16, 37, 0},
    {"PodLevelResources", &G::podLevelResources, 32, 34, 0},
    {"HPAGeneration", &G::hpaGeneration, 37, 37, 0},
};

// HPA gates of kube-controller-manager 1.37 that change how the controller works, not what it
// decides; hpa-controller always works as with them on.
constexpr std::string_view kGatesWithoutDecisions[] = {"StaleControllerConsistencyHPA",
                                                       "HPAOptimizedSelectorStore"};

bool reached(int minor, int since) { return since != 0 && minor >= since; }

std::string ignoredUnknownGate(const std::string& name) {
  for (auto known : kGatesWithoutDecisions) {
    if (known == name)
      return fmt::format("feature gate {}: hpa-controller always works as with it on; ignored",
                         name);
  }
  return fmt::format("feature gate {}: no HPA decision depends on it; ignored", name);
}

}  // namespace

std::span<const FeatureGateHistory> hpaFeatureGates() { return kGates; }

const FeatureGateHistory* findFeatureGate(std::string_view name) {
  for (const auto& g : kGates) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

FeatureGates defaultFeatureGates(int minor) {
  FeatureGates gates;
  for (const auto& g : kGates) gates.*g.gate = reached(minor, g.onSinceMinor);
  return gates;
}

Result<DecisionRules> withFeatureGates(DecisionRules rules,
                                       const std::vector<std::pair<std::string, bool>>& given,
                                       std::vector<std::string>& ignored) {
  for (const auto& [name, on] : given) {
    const FeatureGateHistory* gate = findFeatureGate(name);
    if (!gate) {
      ignored.push_back(ignoredUnknownGate(name));
      continue;
    }
    if (rules.minor < gate->sinceMinor) {
      ignored.push_back(fmt::format(
          "feature gate {}: kube-controller-manager {} does not know it (it came in 1.{}); "
          "ignored",
          name, rules.release(), gate->sinceMinor));
      continue;
    }
    if (!on && reached(rules.minor, gate->lockedSinceMinor)) {
      return Error::format(
          "feature gate {} is GA in kube-controller-manager {} and locked to true; it cannot be "
          "set "
          "to false",
          name, rules.release());
    }
    rules.gates.*gate->gate = on;
  }
  return rules;
}

}  // namespace hpa::replicacalc
