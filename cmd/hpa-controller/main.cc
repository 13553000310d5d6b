#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>

#include "explain_command.h"

int main(int argc, char** argv) {
  CLI::App app{"hpa-controller: a Horizontal Pod Autoscaler controller for Kubernetes"};
  app.set_version_flag("--version", HPA_VERSION);
  std::function<int()> run;
  hpa::cmd::addExplainCommand(app, run);
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    // Usage errors are unusable input (2), like explain's own input errors.
    return code == 0 ? 0 : 2;
  }
  if (!run) {
    std::cout << app.help();
    return 0;
  }
  return run();
}
