#include "decision_flags.h"

namespace hpa::cmd {
namespace {

// A duration flag: its name and help, where its text goes and the setting it makes.
struct DurationFlag {
  const char* name;
  const char* help;
  std::string DecisionFlags::*text;
  Duration controller::ControllerOptions::*setting;
};

constexpr DurationFlag kDurationFlags[] = {
    {"horizontal-pod-autoscaler-downscale-stabilization", "look-back window for scale-down recommendations",
     &DecisionFlags::downscaleStabilization, &controller::ControllerOptions::downscaleStabilizationWindow},
    {"horizontal-pod-autoscaler-cpu-initialization-period", "period after pod start when CPU samples might be skipped",
     &DecisionFlags::cpuInitializationPeriod, &controller::ControllerOptions::cpuInitializationPeriod},
    {"horizontal-pod-autoscaler-initial-readiness-delay",
     "period after pod start during which readiness changes count as initial readiness",
     &DecisionFlags::initialReadinessDelay, &controller::ControllerOptions::delayOfInitialReadinessStatus},
};

}  // namespace

void addDecisionFlags(CLI::App& command, DecisionFlags& flags) {
  command.add_option("--horizontal-pod-autoscaler-tolerance", flags.tolerance,
                     "minimum change (from 1.0) in the desired-to-actual metrics ratio to scale")
      ->capture_default_str();
  for (const auto& d : kDurationFlags) {
    command.add_option(std::string("--") + d.name, flags.*d.text, d.help)->capture_default_str();
  }
}

Result<controller::ControllerOptions> controllerOptions(const DecisionFlags& flags) {
  controller::ControllerOptions options;
  if (!(flags.tolerance >= 0)) return Error::of("--horizontal-pod-autoscaler-tolerance must not be negative");
  options.tolerance = flags.tolerance;
  for (const auto& d : kDurationFlags) {
    auto value = parseDurationFlag(d.name, flags.*d.text);
    if (!value.ok()) return value.error();
    options.*d.setting = *value;
  }
  return options;
}

}  // namespace hpa::cmd
