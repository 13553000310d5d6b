#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "common/result.h"
#include "controller/horizontal_controller.h"

namespace hpa::cmd {

// kube-controller-manager's HPA flags that change a decision, as `explain` and `replay` take
// them, with its defaults.
struct DecisionFlags {
  double tolerance = 0.1;
  std::string downscaleStabilization = "5m";
  std::string cpuInitializationPeriod = "5m";
  std::string initialReadinessDelay = "30s";
};

void addDecisionFlags(CLI::App& command, DecisionFlags& flags);

// The controller settings of the flags; an error names the flag.
Result<controller::ControllerOptions> controllerOptions(const DecisionFlags& flags);

}  // namespace hpa::cmd
