#include "controller/decision_flags.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "common/quote.h"
#include "common/text.h"
#include "controller/horizontal_controller.h"
#include "replicacalc/feature_gates.h"

namespace hpa::controller {
namespace {

using V = DecisionFlagValues;

Error invalid(const DecisionFlag& flag, const std::string& text, std::string_view why) {
  return Error::format("invalid value {} for --{}: {}", quote(text), flag.name, why);
}

Status parseTolerance(const DecisionFlag& flag, const std::string& text, DecisionSettings& out) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    return invalid(flag, text, "not a number");
  }
  if (value < 0) return invalid(flag, text, "must not be negative");
  out.tolerance = value;
  return Status();
}

template <Duration DecisionSettings::*setting>
Status parseDuration(const DecisionFlag& flag, const std::string& text, DecisionSettings& out) {
  auto value = parseDurationFlag(flag.name, text);
  if (!value.ok()) return value.error();
  out.*setting = *value;
  return Status();
}

Status parseRules(const DecisionFlag& flag, const std::string& text, DecisionSettings& out) {
  out.rulesMinor.reset();
  if (text == kAutoRules) return Status();
  if (text == kCurrentRules) {
    out.rulesMinor = replicacalc::kNewestRulesMinor;
    return Status();
  }
  // "1.<minor>", digits only after the dot.
  std::optional<int> minor;
  if (text.starts_with("1.") && text.size() > 2) {
    int value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data() + 2, end, value);
    if (ec == std::errc() && ptr == end && std::isdigit(static_cast<unsigned char>(text[2])))
      minor = value;
  }
  if (!minor || *minor < replicacalc::kOldestRulesMinor ||
      *minor > replicacalc::kNewestRulesMinor) {
    // A YAML config file reads an unquoted 1.20 as the number 1.2.
    const std::string hint =
        minor && *minor < 10 ? " (in a YAML file, quote the release: \"1.20\")" : "";
    return invalid(
        flag, text,
        fmt::format("must be {}, {} or a kube-controller-manager release from 1.{} to 1.{}{}",
                    kAutoRules, kCurrentRules, replicacalc::kOldestRulesMinor,
                    replicacalc::kNewestRulesMinor, hint));
  }
  out.rulesMinor = minor;
  return Status();
}

// Go's strconv.ParseBool, which kube-controller-manager's --feature-gates uses.
std::optional<bool> parseGoBool(const std::string& s) {
  for (const char* yes : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (s == yes) return true;
  }
  for (const char* no : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (s == no) return false;
  }
  return std::nullopt;
}

// kube-controller-manager's syntax: comma-separated NAME=BOOL, spaces around each ignored.
Status parseGates(const DecisionFlag& flag, const std::string& text, DecisionSettings& out) {
  out.featureGates.clear();
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string entry = std::string(trimSpace(rest.substr(0, comma)));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (entry.empty()) continue;
    const auto eq = entry.find('=');
    if (eq == std::string::npos)
      return invalid(flag, text, fmt::format("missing bool value for {}", entry));
    const std::string name = std::string(trimSpace(std::string_view(entry).substr(0, eq)));
    const std::string value = std::string(trimSpace(std::string_view(entry).substr(eq + 1)));
    if (name.empty())
      return invalid(flag, text, fmt::format("missing gate name in {}", quote(entry)));
    auto on = parseGoBool(value);
    if (!on)
      return invalid(flag, text,
                     fmt::format("{}: {} is not a boolean (true or false)", name, quote(value)));
    out.featureGates.emplace_back(name, *on);
  }
  return Status();
}

static_assert(replicacalc::kOldestRulesMinor == 18 && replicacalc::kNewestRulesMinor == 37,
              "the help of --decision-rules names the releases");

constexpr DecisionFlag kFlags[] = {
    {"horizontal-pod-autoscaler-tolerance",
     "minimum change (from 1.0) in the desired-to-actual metrics ratio for the horizontal pod "
     "autoscaler to consider "
     "scaling",
     &V::tolerance, parseTolerance},
    {"horizontal-pod-autoscaler-downscale-stabilization",
     "period for which autoscaler will look backwards and not scale down below any recommendation "
     "it made during "
     "that period",
     &V::downscaleStabilization, parseDuration<&DecisionSettings::downscaleStabilization>},
    {"horizontal-pod-autoscaler-cpu-initialization-period",
     "period after pod start when CPU samples might be skipped", &V::cpuInitializationPeriod,
     parseDuration<&DecisionSettings::cpuInitializationPeriod>},
    {"horizontal-pod-autoscaler-initial-readiness-delay",
     "period after pod start during which readiness changes will be treated as initial readiness",
     &V::initialReadinessDelay, parseDuration<&DecisionSettings::initialReadinessDelay>},
    {"decision-rules",
     "whose rules decide where kube-controller-manager releases differ: auto (the release of the "
     "API server, read at "
     "start; offline, the newest), current (the newest known, 1.37) or a release from 1.18 to "
     "1.37; give the release "
     "of the kube-controller-manager this one replaces or runs beside",
     &V::decisionRules, parseRules},
    {"feature-gates",
     "kube-controller-manager's feature gates, in its syntax (A=true,B=false): "
     "HPAContainerMetrics, "
     "HPAConfigurableTolerance, HPAScaleToZero, PodLevelResources and HPAGeneration override the "
     "release's "
     "defaults; any other gate is accepted and ignored",
     &V::featureGates, parseGates},
};

// Why these rules: the release named, the server's, or the newest without a server.
std::string rulesNotice(const DecisionSettings& settings,
                        const std::optional<ServerRelease>& server, int minor) {
  if (settings.rulesMinor)
    return fmt::format("decision rules: kube-controller-manager 1.{}'s (--decision-rules)", minor);
  if (!server) {
    return fmt::format(
        "decision rules: kube-controller-manager 1.{}'s, the newest (--decision-rules=auto, and no "
        "API server asked)",
        minor);
  }
  std::string why = "the API server's release";
  if (server->minor < minor) why = "the oldest known; the API server's release is older";
  if (server->minor > minor) why = "the newest known; the API server's release is newer";
  return fmt::format("decision rules: kube-controller-manager 1.{}'s, {} ({})", minor, why,
                     server->gitVersion);
}

}  // namespace

std::span<const DecisionFlag> decisionFlags() { return kFlags; }

const DecisionFlag* findDecisionFlag(std::string_view name) {
  for (const auto& flag : kFlags) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

Result<DecisionSettings> parseDecisionFlags(const DecisionFlagValues& values) {
  DecisionSettings settings;
  for (const auto& flag : kFlags) {
    if (auto parsed = flag.parse(flag, values.*flag.value, settings); !parsed.ok())
      return parsed.error();
  }
  if (settings.rulesMinor) {
    std::vector<std::string> ignored;
    auto gated = replicacalc::withFeatureGates(replicacalc::decisionRulesOf(*settings.rulesMinor),
                                               settings.featureGates, ignored);
    if (!gated.ok())
      return invalid(*findDecisionFlag("feature-gates"), values.featureGates,
                     gated.error().message);
  }
  return settings;
}

Result<ChosenRules> chooseDecisionRules(const DecisionSettings& settings,
                                        const std::optional<ServerRelease>& server) {
  int minor = replicacalc::kNewestRulesMinor;
  if (settings.rulesMinor) {
    minor = *settings.rulesMinor;
  } else if (server) {
    minor = replicacalc::rulesMinorBeside(server->minor);
  }
  ChosenRules chosen;
  chosen.choice = rulesNotice(settings, server, minor);
  if (settings.rulesMinor && server && replicacalc::rulesMinorBeside(server->minor) != minor) {
    chosen.warnings.push_back(
        fmt::format("--decision-rules=1.{} but the API server runs {}: decisions follow 1.{}'s "
                    "rules, not those of the "
                    "kube-controller-manager of the server's release (during an upgrade it may be "
                    "one release older)",
                    minor, server->gitVersion, minor));
  }
  auto rules = replicacalc::withFeatureGates(replicacalc::decisionRulesOf(minor),
                                             settings.featureGates, chosen.ignoredGates);
  if (!rules.ok()) return rules.error().wrap("--feature-gates");
  chosen.rules = *rules;
  return chosen;
}

ControllerOptions controllerOptionsOf(const DecisionSettings& settings,
                                      const replicacalc::DecisionRules& rules) {
  ControllerOptions options;
  options.tolerance = settings.tolerance;
  options.downscaleStabilizationWindow = settings.downscaleStabilization;
  options.cpuInitializationPeriod = settings.cpuInitializationPeriod;
  options.delayOfInitialReadinessStatus = settings.initialReadinessDelay;
  options.decisionRules = rules;
  return options;
}

std::vector<std::string> decisionFlagArguments(const DecisionFlagValues& values,
                                               const replicacalc::DecisionRules& rules) {
  const DecisionFlagValues defaults;
  std::vector<std::string> arguments;
  for (const auto& flag : kFlags) {
    std::string value = values.*flag.value;
    // auto, read beside a server, is replayed offline as the release it chose.
    if (flag.value == &V::decisionRules && value == kAutoRules &&
        rules.minor != replicacalc::kNewestRulesMinor) {
      value = rules.release();
    }
    if (value != defaults.*flag.value)
      arguments.push_back(fmt::format("--{}={}", flag.name, value));
  }
  return arguments;
}

Status applyDecisionFlag(const DecisionFlag& flag, const std::string& text,
                         ControllerOptions& options, std::vector<std::string>& ignored) {
  DecisionSettings settings{options.tolerance,
                            options.downscaleStabilizationWindow,
                            options.cpuInitializationPeriod,
                            options.delayOfInitialReadinessStatus,
                            options.decisionRules.minor,
                            {}};
  if (auto parsed = flag.parse(flag, text, settings); !parsed.ok()) return parsed;
  if (flag.value == &V::decisionRules) {
    options.decisionRules =
        replicacalc::decisionRulesOf(settings.rulesMinor.value_or(replicacalc::kNewestRulesMinor));
  } else if (flag.value == &V::featureGates) {
    auto gated =
        replicacalc::withFeatureGates(options.decisionRules, settings.featureGates, ignored);
    if (!gated.ok()) return invalid(flag, text, gated.error().message);
    options.decisionRules = *gated;
  }
  options.tolerance = settings.tolerance;
  options.downscaleStabilizationWindow = settings.downscaleStabilization;
  options.cpuInitializationPeriod = settings.cpuInitializationPeriod;
  options.delayOfInitialReadinessStatus = settings.initialReadinessDelay;
  return Status();
}

}  // namespace hpa::controller
