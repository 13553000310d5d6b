#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace hpa::cmd {

// Registers `hpa-controller handback` on `app`; `run` is set to the command's entry point
// (returns the process exit code) when the subcommand is selected.
void addHandbackCommand(CLI::App& app, std::function<int()>& run);

}  // namespace hpa::cmd
