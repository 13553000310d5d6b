#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "controller/decision_flags.h"

namespace hpa::cmd {

// Registers `hpa-controller explain` on `app`; `run` is set to the command's entry point
// (returns the process exit code) when the subcommand is selected. Returns where the command's
// decision flags are parsed to (owned by `app`), for tests that parse them as the daemon's.
controller::DecisionFlagValues& addExplainCommand(CLI::App& app, std::function<int()>& run);

}  // namespace hpa::cmd
