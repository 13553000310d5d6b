#include "explain_command.h"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "common/time.h"
#include "explain/explain.h"
#include "explain/render.h"
#include "explain/snapshot.h"

namespace hpa::cmd {
namespace {

// Exit codes: a decision (even "cannot scale") is 0; unusable input is 2.
constexpr int kExitDecision = 0;
constexpr int kExitUnusableInput = 2;

struct ExplainFlags {
  std::vector<std::string> files;
  std::string now;
  std::string output;
  std::string hpa;
  double tolerance = 0.1;
  std::string downscaleStabilization = "5m";
  std::string cpuInitializationPeriod = "5m";
  std::string initialReadinessDelay = "30s";
};

int fail(const std::string& message) {
  std::cerr << "hpa-controller explain: " << message << "\n";
  return kExitUnusableInput;
}

Result<std::string> readSource(const std::string& name) {
  std::ostringstream buf;
  if (name == "-") {
    buf << std::cin.rdbuf();
    return buf.str();
  }
  std::ifstream in(name, std::ios::binary);
  if (!in) return Error::format("{}: cannot read file", name);
  buf << in.rdbuf();
  if (in.bad()) return Error::format("{}: read error", name);
  return buf.str();
}

Result<Duration> durationFlag(const std::string& flag, const std::string& value) {
  auto d = parseGoDuration(value);
  if (!d.ok()) return Error::format("invalid value {:?} for --{}: {}", value, flag, d.error().message);
  if (d->count() < 0) return Error::format("invalid value {:?} for --{}: must not be negative", value, flag);
  return d;
}

int runExplain(const ExplainFlags& flags) {
  explain::ExplainOptions options;
  options.hpaKey = flags.hpa;
  if (flags.tolerance < 0) return fail("--horizontal-pod-autoscaler-tolerance must not be negative");
  options.controller.tolerance = flags.tolerance;
  auto window = durationFlag("horizontal-pod-autoscaler-downscale-stabilization", flags.downscaleStabilization);
  auto cpuInit = durationFlag("horizontal-pod-autoscaler-cpu-initialization-period", flags.cpuInitializationPeriod);
  auto readiness = durationFlag("horizontal-pod-autoscaler-initial-readiness-delay", flags.initialReadinessDelay);
  for (const auto* d : {&window, &cpuInit, &readiness}) {
    if (!d->ok()) return fail(d->error().message);
  }
  options.controller.downscaleStabilizationWindow = *window;
  options.controller.cpuInitializationPeriod = *cpuInit;
  options.controller.delayOfInitialReadinessStatus = *readiness;
  if (flags.now.empty()) {
    options.now = std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
  } else {
    auto now = parseRFC3339(flags.now);
    if (!now.ok()) return fail("--now: " + now.error().message);
    options.now = *now;
  }
  std::string output = flags.output;
  if (output.empty()) output = isatty(STDOUT_FILENO) ? "text" : "json";

  std::vector<explain::SnapshotSource> sources;
  int stdinUses = 0;
  for (const auto& file : flags.files) {
    if (file == "-" && ++stdinUses > 1) return fail("standard input (-) can be given only once");
    auto text = readSource(file);
    if (!text.ok()) return fail(text.error().message);
    sources.push_back({file == "-" ? "<stdin>" : file, std::move(*text)});
  }
  auto snapshot = explain::loadSnapshot(sources);
  if (!snapshot.ok()) return fail(snapshot.error().message);
  auto explanation = explain::explainSnapshot(*snapshot, options);
  if (!explanation.ok()) return fail(explanation.error().message);
  if (output == "json") {
    std::cout << explain::explanationToJson(*explanation).dump(2) << "\n";
  } else {
    std::cout << explain::explanationToText(*explanation);
  }
  return kExitDecision;
}

}  // namespace

void addExplainCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<ExplainFlags>();
  auto* cmd = app.add_subcommand("explain",
                                 "Show what the autoscaler would decide now for an HPA, and why, from objects exported "
                                 "from a cluster (kubectl get -o yaml, kubectl get --raw). Writes nothing anywhere.");
  cmd->add_option("-f,--filename", flags->files, "snapshot file (YAML or JSON; '-' for stdin); repeatable")
      ->required();
  cmd->add_option("--now", flags->now, "the time of the decision, RFC 3339 (default: the current time)");
  cmd->add_option("-o,--output", flags->output, "json or text (default: text on a terminal, json otherwise)")
      ->check(CLI::IsMember({"json", "text"}));
  cmd->add_option("--hpa", flags->hpa, "namespace/name of the HPA when the snapshot holds several");
  cmd->add_option("--horizontal-pod-autoscaler-tolerance", flags->tolerance,
                  "minimum change (from 1.0) in the desired-to-actual metrics ratio to scale")
      ->capture_default_str();
  cmd->add_option("--horizontal-pod-autoscaler-downscale-stabilization", flags->downscaleStabilization,
                  "look-back window for scale-down recommendations")
      ->capture_default_str();
  cmd->add_option("--horizontal-pod-autoscaler-cpu-initialization-period", flags->cpuInitializationPeriod,
                  "period after pod start when CPU samples might be skipped")
      ->capture_default_str();
  cmd->add_option("--horizontal-pod-autoscaler-initial-readiness-delay", flags->initialReadinessDelay,
                  "period after pod start during which readiness changes count as initial readiness")
      ->capture_default_str();
  cmd->callback([flags, &run]() { run = [flags]() { return runExplain(*flags); }; });
}

}  // namespace hpa::cmd
