#pragma once

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/time.h"
#include "replicacalc/decision_rules.h"
#include "replicacalc/flag_defaults.h"

namespace hpa::controller {

struct ControllerOptions;

// The flags that change a decision, defined once for the daemon (flags and --config keys),
// `explain` (offline and live) and `replay`: their names, defaults, help, and how each is
// checked, with the same error text wherever it is given.

using replicacalc::kDefaultCpuInitializationPeriod;
using replicacalc::kDefaultDownscaleStabilization;
using replicacalc::kDefaultInitialReadinessDelay;
using replicacalc::kDefaultTolerance;

// --decision-rules' default: the rules of the release the API server runs (read at start; the
// newest known when no server is asked, as offline).
inline constexpr std::string_view kAutoRules = "auto";
// --decision-rules=current: the newest release's rules.
inline constexpr std::string_view kCurrentRules = "current";

// The flags' values as given (text, as on a command line or in a config file).
struct DecisionFlagValues {
  std::string tolerance = fmt::format("{}", kDefaultTolerance);
  std::string downscaleStabilization = formatGoDuration(kDefaultDownscaleStabilization);
  std::string cpuInitializationPeriod = formatGoDuration(kDefaultCpuInitializationPeriod);
  std::string initialReadinessDelay = formatGoDuration(kDefaultInitialReadinessDelay);
  std::string decisionRules{kAutoRules};
  std::string featureGates;  // kube-controller-manager's syntax: A=true,B=false
  bool operator==(const DecisionFlagValues&) const = default;
};

// What the flags say, checked.
struct DecisionSettings {
  double tolerance = kDefaultTolerance;
  Duration downscaleStabilization = kDefaultDownscaleStabilization;
  Duration cpuInitializationPeriod = kDefaultCpuInitializationPeriod;
  Duration initialReadinessDelay = kDefaultInitialReadinessDelay;
  std::optional<int> rulesMinor;  // nullopt: auto, the API server's release
  std::vector<std::pair<std::string, bool>> featureGates;  // as given, in order
  bool operator==(const DecisionSettings&) const = default;
};

// One decision flag: its name (without dashes; also its --config key), its help, its value, and
// how a value is checked into the settings (the error names the flag).
struct DecisionFlag {
  std::string_view name;
  std::string_view help;
  std::string DecisionFlagValues::*value;
  Status (*parse)(const DecisionFlag& flag, const std::string& text, DecisionSettings& settings);
};
std::span<const DecisionFlag> decisionFlags();
// The flag named `name` (without dashes); nullptr when it is not a decision flag.
const DecisionFlag* findDecisionFlag(std::string_view name);

// The values checked; the first invalid one's error names its flag
// ("invalid value "x" for --horizontal-pod-autoscaler-tolerance: not a number"). With a release
// given, a feature gate it locks is checked too.
Result<DecisionSettings> parseDecisionFlags(const DecisionFlagValues& values);

// The rules a decision follows, and what to log about the choice.
struct ChosenRules {
  replicacalc::DecisionRules rules{};
  std::string choice;                     // which rules, and why
  std::vector<std::string> ignoredGates;  // one sentence per feature gate given and ignored
  std::vector<std::string> warnings;      // --decision-rules given and unlike the server's release
};

// The API server's release as GET /version answers it.
struct ServerRelease {
  int minor = 0;
  std::string gitVersion;  // for messages ("v1.20.2")
};

// The rules `settings` ask for beside `server` (nullopt: no server was asked; auto then means
// the newest rules). Errors: a feature gate the chosen release locks.
Result<ChosenRules> chooseDecisionRules(const DecisionSettings& settings,
                                        const std::optional<ServerRelease>& server);

// One decision flag given again over `options` (replay's --set): its value checked as the flag's
// own; --decision-rules sets that release's rules with its default gates, --feature-gates sets
// the gates given over the rules `options` have (ignored ones named in `ignored`).
Status applyDecisionFlag(const DecisionFlag& flag, const std::string& text,
                         ControllerOptions& options, std::vector<std::string>& ignored);

// The controller's options of these settings and rules (the others at their defaults).
ControllerOptions controllerOptionsOf(const DecisionSettings& settings,
                                      const replicacalc::DecisionRules& rules);

// The flags that give `settings` under `rules` again, as --name=value arguments: those that differ
// from the defaults, and --decision-rules when the rules are not what auto gives offline (a
// snapshot explained offline then decides as the cluster it was read from).
std::vector<std::string> decisionFlagArguments(const DecisionFlagValues& values,
                                               const replicacalc::DecisionRules& rules);

}  // namespace hpa::controller
