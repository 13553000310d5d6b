#pragma once

#include <CLI/CLI.hpp>

#include "common/result.h"
#include "controller/decision_flags.h"
#include "controller/horizontal_controller.h"

namespace hpa::cmd {

// The decision flags (controller/decision_flags.h) on a command: the daemon's, explain's and
// replay's are these same options, with the same defaults and help.
void addDecisionFlags(CLI::App& command, controller::DecisionFlagValues& values);

// The controller settings of the flags where no API server is asked (offline: auto means the
// newest rules); an error names the flag. Ignored feature gates are reported on stderr with
// `prefix` ("hpa-controller explain: ").
Result<controller::ControllerOptions> offlineControllerOptions(
    const controller::DecisionFlagValues& values, const std::string& prefix);

}  // namespace hpa::cmd
