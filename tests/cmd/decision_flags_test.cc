// The decision flags parse alike wherever they are given: the daemon's command line and --config
// file, `explain` and `replay`. Each route is taken as the binary takes it (the same CLI11
// commands main() builds, then validate() or the commands' own parsing).
#include "decision_flags.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "daemon/options.h"
#include "explain_command.h"
#include "replay_command.h"
#include "run_flags.h"

namespace hpa::cmd {
namespace {

using controller::ControllerOptions;

// The command line as main() builds it, parsed; the values the subcommand read, if one ran.
struct CommandLine {
  CLI::App app;
  daemon::DaemonOptions daemon;
  std::string configFile;
  std::function<int()> run;
  controller::DecisionFlagValues* explain = nullptr;
  controller::DecisionFlagValues* replay = nullptr;

  CommandLine() {
    addDaemonFlags(app, daemon, configFile);
    explain = &addExplainCommand(app, run);
    replay = &addReplayCommand(app, run);
  }
  void parse(std::vector<std::string> args) {
    args.insert(args.begin(), "hpa-controller");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    app.parse(static_cast<int>(argv.size()), argv.data());
  }
};

// What each route makes of the flags: the controller's options, or the error.
Result<ControllerOptions> daemonRoute(const daemon::DaemonOptions& options) {
  auto validated = daemon::validate(options);
  if (!validated.ok()) return validated.error();
  return controller::controllerOptionsOf(validated->decision, validated->rules);
}

Result<ControllerOptions> viaDaemonFlags(const std::vector<std::string>& flags) {
  CommandLine line;
  line.parse(flags);
  return daemonRoute(line.daemon);
}

Result<ControllerOptions> viaConfigFile(
    const std::vector<std::pair<std::string, std::string>>& settings) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("decision-flags-" + std::to_string(::getpid()) + ".yaml");
  {
    std::ofstream out(path);
    for (const auto& [key, value] : settings) out << key << ": \"" << value << "\"\n";
  }
  std::string arg0 = "hpa-controller", config = "--config=" + path.string();
  char* argv[] = {arg0.data(), config.data(), nullptr};
  daemon::DaemonOptions options;
  auto applied = applyConfigFile(2, argv, options);
  std::filesystem::remove(path);
  if (!applied.ok()) return applied.error();
  return daemonRoute(options);
}

Result<ControllerOptions> viaExplain(const std::vector<std::string>& flags) {
  CommandLine line;
  std::vector<std::string> args{"explain", "-f", "snapshot.yaml"};
  args.insert(args.end(), flags.begin(), flags.end());
  line.parse(args);
  return offlineControllerOptions(*line.explain, "");
}

Result<ControllerOptions> viaReplay(const std::vector<std::string>& flags) {
  CommandLine line;
  std::vector<std::string> args{"replay", "-f", "hpa.yaml", "--trace", "trace.csv"};
  args.insert(args.end(), flags.begin(), flags.end());
  line.parse(args);
  return offlineControllerOptions(*line.replay, "");
}

// Equal answers: the same error text, or the same decision settings.
void expectSame(const Result<ControllerOptions>& a, const Result<ControllerOptions>& b,
                const std::string& route) {
  ASSERT_EQ(a.ok(), b.ok()) << route << ": " << (a.ok() ? b.error().message : a.error().message);
  if (!a.ok()) {
    EXPECT_EQ(a.error().message, b.error().message) << route;
    return;
  }
  EXPECT_EQ(a->tolerance, b->tolerance) << route;
  EXPECT_EQ(a->downscaleStabilizationWindow, b->downscaleStabilizationWindow) << route;
  EXPECT_EQ(a->cpuInitializationPeriod, b->cpuInitializationPeriod) << route;
  EXPECT_EQ(a->delayOfInitialReadinessStatus, b->delayOfInitialReadinessStatus) << route;
  EXPECT_EQ(a->decisionRules, b->decisionRules) << route;
}

// Every route for `settings` (flag name without dashes, value), compared with the daemon's
// command line; returns that answer.
Result<ControllerOptions> everyRoute(
    const std::vector<std::pair<std::string, std::string>>& settings) {
  std::vector<std::string> flags;
  for (const auto& [name, value] : settings) flags.push_back("--" + name + "=" + value);
  auto daemon = viaDaemonFlags(flags);
  expectSame(daemon, viaExplain(flags), "explain");
  expectSame(daemon, viaReplay(flags), "replay");
  auto config = viaConfigFile(settings);
  // The config file's errors name the file before the same message.
  if (!config.ok() && !daemon.ok()) {
    EXPECT_TRUE(config.error().message.ends_with(daemon.error().message)) << config.error().message;
  } else {
    expectSame(daemon, config, "--config");
  }
  return daemon;
}

TEST(DecisionFlags, EveryFlagParsesAlikeInTheDaemonExplainAndReplay) {
  struct Case {
    std::vector<std::pair<std::string, std::string>> settings;
    const char* error;  // nullptr: valid
  };
  const Case cases[] = {
      {{{"horizontal-pod-autoscaler-tolerance", "0.25"}}, nullptr},
      {{{"horizontal-pod-autoscaler-tolerance", "abc"}},
       "invalid value \"abc\" for --horizontal-pod-autoscaler-tolerance: not a number"},
      {{{"horizontal-pod-autoscaler-tolerance", "-1"}},
       "invalid value \"-1\" for --horizontal-pod-autoscaler-tolerance: must not be negative"},
      {{{"horizontal-pod-autoscaler-downscale-stabilization", "2m30s"}}, nullptr},
      {{{"horizontal-pod-autoscaler-downscale-stabilization", "5"}},
       "--horizontal-pod-autoscaler-downscale-stabilization"},
      {{{"horizontal-pod-autoscaler-cpu-initialization-period", "1m"}}, nullptr},
      {{{"horizontal-pod-autoscaler-cpu-initialization-period", "-1s"}},
       "invalid value \"-1s\" for --horizontal-pod-autoscaler-cpu-initialization-period: must not "
       "be negative"},
      {{{"horizontal-pod-autoscaler-initial-readiness-delay", "10s"}}, nullptr},
      {{{"horizontal-pod-autoscaler-initial-readiness-delay", "soon"}},
       "--horizontal-pod-autoscaler-initial-readiness-delay"},
      {{{"decision-rules", "1.20"}}, nullptr},
      {{{"decision-rules", "current"}}, nullptr},
      {{{"decision-rules", "1.17"}},
       "invalid value \"1.17\" for --decision-rules: must be auto, current or a "
       "kube-controller-manager release from "
       "1.18 to 1.37"},
      {{{"feature-gates", "HPAScaleToZero=true, SomeOtherGate=false"}}, nullptr},
      {{{"feature-gates", "HPAScaleToZero"}},
       "invalid value \"HPAScaleToZero\" for --feature-gates: missing bool value for "
       "HPAScaleToZero"},
      {{{"decision-rules", "1.30"}, {"feature-gates", "HPAContainerMetrics=false"}},
       "invalid value \"HPAContainerMetrics=false\" for --feature-gates: feature gate "
       "HPAContainerMetrics is GA in "
       "kube-controller-manager 1.30 and locked to true; it cannot be set to false"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.settings.back().first + "=" + c.settings.back().second);
    auto answer = everyRoute(c.settings);
    if (!c.error) {
      EXPECT_TRUE(answer.ok()) << answer.error().message;
    } else {
      ASSERT_FALSE(answer.ok());
      EXPECT_NE(answer.error().message.find(c.error), std::string::npos) << answer.error().message;
    }
  }
}

TEST(DecisionFlags, ValuesReachTheControllerOptions) {
  auto options = everyRoute({{"horizontal-pod-autoscaler-tolerance", "0.25"},
                             {"horizontal-pod-autoscaler-downscale-stabilization", "2m30s"},
                             {"decision-rules", "1.34"},
                             {"feature-gates", "HPAConfigurableTolerance=true,Unknown=true"}});
  ASSERT_TRUE(options.ok()) << options.error().message;
  EXPECT_EQ(options->tolerance, 0.25);
  EXPECT_EQ(options->downscaleStabilizationWindow, std::chrono::seconds(150));
  EXPECT_EQ(options->decisionRules.minor, 34);
  EXPECT_TRUE(options->decisionRules.gates.hpaConfigurableTolerance)
      << "given; 1.34's default is off";
  EXPECT_TRUE(options->decisionRules.gates.podLevelResources) << "1.34's default";
}

TEST(DecisionFlags, DefaultsAreKubeControllerManagersAndAutoIsTheNewestOffline) {
  auto options = everyRoute({});
  ASSERT_TRUE(options.ok()) << options.error().message;
  EXPECT_EQ(options->tolerance, 0.1);
  EXPECT_EQ(options->downscaleStabilizationWindow, std::chrono::minutes(5));
  EXPECT_EQ(options->cpuInitializationPeriod, std::chrono::minutes(5));
  EXPECT_EQ(options->delayOfInitialReadinessStatus, std::chrono::seconds(30));
  EXPECT_EQ(options->decisionRules, replicacalc::decisionRulesOf(replicacalc::kNewestRulesMinor));
  EXPECT_EQ(controller::DecisionFlagValues{}.decisionRules, "auto");
}

}  // namespace
}  // namespace hpa::cmd
