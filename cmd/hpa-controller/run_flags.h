#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/result.h"
#include "daemon/options.h"

namespace hpa::cmd {

// The daemon's flags on the top-level command (names and defaults of kube-controller-manager
// where they mirror it), plus --config FILE whose YAML keys are the same names.
void addDaemonFlags(CLI::App& app, daemon::DaemonOptions& options, std::string& configFile);

// klog spells the verbosity `-v=4` as well as `-v 4` and `--v=4`; CLI11 takes the last two only,
// so "-x=value" arguments (one-letter flags) are split in two before parsing.
std::vector<std::string> splitShortFlagValues(int argc, char** argv);

// Applies a config file to `options` before the command line is parsed (flags then override).
// Looks for --config in argv itself, since the file must be read before flags are applied.
Status applyConfigFile(int argc, char** argv, daemon::DaemonOptions& options);

}  // namespace hpa::cmd
