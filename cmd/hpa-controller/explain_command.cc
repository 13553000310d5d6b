#include "explain_command.h"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "common/quote.h"
#include "common/time.h"
#include "explain/explain.h"
#include "explain/render.h"
#include "explain/snapshot.h"
#include "explain_flags.h"

namespace hpa::cmd {
namespace {

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
  if (!d.ok()) return Error::format("invalid value {} for --{}: {}", quote(value), flag, d.error().message);
  if (d->count() < 0) return Error::format("invalid value {} for --{}: must not be negative", quote(value), flag);
  return d;
}

}  // namespace

int explainFailure(const std::string& message, int code) {
  std::cerr << "hpa-controller explain: " << message << "\n";
  return code;
}

Result<controller::ControllerOptions> controllerOptions(const ExplainFlags& flags) {
  controller::ControllerOptions options;
  if (flags.tolerance < 0) return Error::of("--horizontal-pod-autoscaler-tolerance must not be negative");
  options.tolerance = flags.tolerance;
  auto window = durationFlag("horizontal-pod-autoscaler-downscale-stabilization", flags.downscaleStabilization);
  auto cpuInit = durationFlag("horizontal-pod-autoscaler-cpu-initialization-period", flags.cpuInitializationPeriod);
  auto readiness = durationFlag("horizontal-pod-autoscaler-initial-readiness-delay", flags.initialReadinessDelay);
  for (const auto* d : {&window, &cpuInit, &readiness}) {
    if (!d->ok()) return d->error();
  }
  options.downscaleStabilizationWindow = *window;
  options.cpuInitializationPeriod = *cpuInit;
  options.delayOfInitialReadinessStatus = *readiness;
  return options;
}

std::string outputFormat(const ExplainFlags& flags) {
  if (!flags.output.empty()) return flags.output;
  return isatty(STDOUT_FILENO) ? "text" : "json";
}

namespace {

int fail(const std::string& message) { return explainFailure(message); }

// Offline: `explain -f SNAPSHOT`.
int runSnapshotExplain(const ExplainFlags& flags) {
  explain::ExplainOptions options;
  options.hpaKey = flags.hpa;
  auto controller = controllerOptions(flags);
  if (!controller.ok()) return fail(controller.error().message);
  options.controller = *controller;
  if (flags.now.empty()) {
    options.now = std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
  } else {
    auto now = parseRFC3339(flags.now);
    if (!now.ok()) return fail("--now: " + now.error().message);
    options.now = *now;
  }
  const std::string output = outputFormat(flags);

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

// Snapshot files or a live cluster; the flags of the other mode are mistakes.
int runExplain(const ExplainFlags& flags) {
  const bool live = !flags.targets.empty() || flags.all || flags.allNamespaces;
  if (flags.files.empty() && !live) {
    return fail("say what to explain: NAMESPACE/NAME (or NAME -n NAMESPACE), --all, -A, or -f SNAPSHOT");
  }
  if (!flags.files.empty()) {
    if (live) return fail("-f explains a snapshot; it does not take an HPA name, --all or -A");
    if (!flags.save.empty() || !flags.kubeconfig.empty() || !flags.context.empty() || !flags.master.empty() ||
        !flags.namespace_.empty()) {
      return fail("-f explains a snapshot; --save, --kubeconfig, --context, --master and -n are for a live cluster");
    }
    return runSnapshotExplain(flags);
  }
  if (!flags.now.empty()) return fail("--now applies to snapshots (-f); a live cluster is explained as of now");
  if (!flags.hpa.empty()) return fail("--hpa chooses among the HPAs of a snapshot (-f)");
  return runLiveExplain(flags);
}

}  // namespace

void addExplainCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<ExplainFlags>();
  auto* cmd = app.add_subcommand(
      "explain",
      "Show what the autoscaler would decide now for an HPA, and why: live from a cluster (read-only), or from "
      "objects exported from one (kubectl get -o yaml, kubectl get --raw, or explain --save). Writes nothing.");
  cmd->add_option("target", flags->targets, "the HPA: NAMESPACE/NAME, or NAME in the namespace of -n (live mode)")
      ->expected(0, 1);
  cmd->add_option("-n,--namespace", flags->namespace_,
                  "the namespace of NAME or of --all (default: the context's namespace, else default)");
  cmd->add_flag("--all", flags->all, "every HPA of the namespace, as a table (-o json: an array)");
  cmd->add_flag("-A,--all-namespaces", flags->allNamespaces, "every HPA of the cluster, as a table");
  cmd->add_option("--save", flags->save,
                  "write what was read as a snapshot file, to replay offline with -f (and attach to bug reports)");
  cmd->add_option("--kubeconfig", flags->kubeconfig, "path to a kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  cmd->add_option("--context", flags->context, "the kubeconfig context to use");
  cmd->add_option("--master", flags->master, "the address of the Kubernetes API server (overrides the kubeconfig)");
  cmd->add_option("-f,--filename", flags->files, "snapshot file (YAML or JSON; '-' for stdin); repeatable");
  cmd->add_option("--now", flags->now, "the time of the decision for a snapshot, RFC 3339 (default: the current time)");
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
