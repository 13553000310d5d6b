#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/version.h"
#include "daemon/daemon.h"
#include "explain_command.h"
#include "handback_command.h"
#include "replay_command.h"
#include "run_flags.h"

namespace {

// Installed as `kubectl-hpa` (a link to this binary), kubectl runs it for `kubectl hpa ...`:
// then it is a kubectl plugin with subcommands only, never the daemon.
bool runAsKubectlPlugin(const char* argv0) {
  std::string_view name(argv0 ? argv0 : "");
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  return name == "kubectl-hpa";
}

int parse(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> args = hpa::cmd::splitShortFlagValues(argc, argv);
  std::vector<char*> argp;
  argp.reserve(args.size());
  for (auto& a : args) argp.push_back(a.data());
  try {
    app.parse(static_cast<int>(argp.size()), argp.data());
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    // Usage errors are unusable input (2), like explain's own input errors.
    return code == 0 ? 0 : 2;
  }
  return -1;
}

int kubectlPlugin(int argc, char** argv) {
  CLI::App app{
      "kubectl hpa: what the Horizontal Pod Autoscaler would decide now, and why; what-if replays; "
      "what a handback "
      "to kube-controller-manager leaves behind (hpa-controller)."};
  app.name("kubectl hpa");
  app.set_version_flag("--version", hpa::versionLine());
  std::function<int()> run;
  hpa::cmd::addExplainCommand(app, run);
  hpa::cmd::addReplayCommand(app, run);
  hpa::cmd::addHandbackCommand(app, run);
  app.require_subcommand(1);
  if (int code = parse(app, argc, argv); code >= 0) return code;
  return run();
}

}  // namespace

// hpa-controller            the controller daemon (flags as kube-controller-manager's HPA flags)
// hpa-controller explain    what the autoscaler would decide now for an HPA, and why
// hpa-controller replay     what-if: an HPA replayed through a recorded metric trace
// hpa-controller handback   what kube-controller-manager will ignore of the HPAs' annotations
// kubectl-hpa explain|replay|handback  the subcommands, as a kubectl plugin
int main(int argc, char** argv) {
  if (runAsKubectlPlugin(argc > 0 ? argv[0] : nullptr)) return kubectlPlugin(argc, argv);
  CLI::App app{
      "hpa-controller: a Horizontal Pod Autoscaler controller for Kubernetes.\n"
      "Without a subcommand it runs the controller; `explain` answers what it would do, live or "
      "offline;\n"
      "`replay` runs an HPA through a recorded metric trace; `handback` lists what "
      "kube-controller-manager will\n"
      "ignore of the HPAs' hpa-controller.io/ annotations when it decides them again."};
  app.set_version_flag("--version", hpa::versionLine());
  hpa::daemon::DaemonOptions options;
  std::string configFile;
  if (auto s = hpa::cmd::applyConfigFile(argc, argv, options); !s.ok()) {
    std::cerr << "hpa-controller: " << s.error().message << "\n";
    return 2;
  }
  hpa::cmd::addDaemonFlags(app, options, configFile);
  std::function<int()> run;
  hpa::cmd::addExplainCommand(app, run);
  hpa::cmd::addReplayCommand(app, run);
  hpa::cmd::addHandbackCommand(app, run);
  app.require_subcommand(0, 1);
  if (int code = parse(app, argc, argv); code >= 0) return code;
  if (run) return run();
  auto validated = hpa::daemon::validate(options);
  if (!validated.ok()) {
    std::cerr << "hpa-controller: " << validated.error().message << "\n";
    return 2;
  }
  return hpa::daemon::runDaemon(*validated);
}
