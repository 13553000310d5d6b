#include "decision_flags.h"

#include <iostream>

namespace hpa::cmd {

void addDecisionFlags(CLI::App& command, controller::DecisionFlagValues& values) {
  for (const auto& flag : controller::decisionFlags()) {
    command.add_option("--" + std::string(flag.name), values.*flag.value, std::string(flag.help))
        ->capture_default_str();
  }
}

Result<controller::ControllerOptions> offlineControllerOptions(
    const controller::DecisionFlagValues& values, const std::string& prefix) {
  auto settings = controller::parseDecisionFlags(values);
  if (!settings.ok()) return settings.error();
  auto chosen = controller::chooseDecisionRules(*settings, std::nullopt);
  if (!chosen.ok()) return chosen.error();
  for (const auto& ignored : chosen->ignoredGates) std::cerr << prefix << ignored << "\n";
  return controller::controllerOptionsOf(*settings, chosen->rules);
}

}  // namespace hpa::cmd
