#include "replay_command.h"

#include <iostream>
#include <memory>

#include "api/quantity.h"
#include "command_io.h"
#include "common/quote.h"
#include "common/time.h"
#include "decision_flags.h"
#include "replay/command.h"

namespace hpa::cmd {
namespace {

// The flags as given: requestOf parses their values, replay::runCommand does the rest.
struct ReplayFlags {
  std::vector<std::string> files;
  std::string hpa;
  std::vector<std::string> traces;
  std::vector<std::string> sets;
  std::string compareFile;
  std::vector<std::string> compareSets;
  std::optional<std::int32_t> replicas;
  std::string cpuRequest;
  std::string memoryRequest;
  std::string syncPeriod = "15s";
  controller::DecisionFlagValues decision;
  std::string readinessDelay = "30s";
  std::string metricWindow = "30s";
  std::string reconcileDuration = "50ms";
  std::string duration;
  std::string output;
  std::string plot;
  kube::ConnectionFlags connection;  // live: no -f, the HPA --hpa names is read from the cluster
};

Result<std::optional<std::int64_t>> requestFlag(const std::string& flag, const std::string& value) {
  if (value.empty()) return std::optional<std::int64_t>();
  auto q = api::Quantity::parse(value);
  if (!q.ok() || q->sign() <= 0)
    return Error::format("invalid value {} for --{}: expected a positive quantity", quote(value),
                         flag);
  return std::optional<std::int64_t>(q->milliValue());
}

Result<replay::ReplayOptions> replayOptions(const ReplayFlags& f) {
  replay::ReplayOptions o;
  auto controller = offlineControllerOptions(f.decision, "hpa-controller replay: ");
  if (!controller.ok()) return controller.error();
  o.controller = *controller;
  const struct {
    const char* flag;
    const std::string& value;
    Duration& setting;
    bool positive;
  } durations[] = {
      {"horizontal-pod-autoscaler-sync-period", f.syncPeriod, o.controller.syncPeriod, true},
      {"readiness-delay", f.readinessDelay, o.readinessDelay, false},
      {"metric-window", f.metricWindow, o.metricWindow, false},
      {"reconcile-duration", f.reconcileDuration, o.reconcileDuration, false},
  };
  for (const auto& d : durations) {
    auto v = parseDurationFlag(d.flag, d.value, d.positive);
    if (!v.ok()) return v.error();
    d.setting = *v;
  }
  if (!f.duration.empty()) {
    auto v = parseDurationFlag("duration", f.duration);
    if (!v.ok()) return v.error();
    o.duration = *v;
  }
  return o;
}

// The request the flags make, their values parsed; errors name the flag.
Result<replay::Request> requestOf(const ReplayFlags& flags) {
  replay::Request r;
  r.files = flags.files;
  r.hpa = flags.hpa;
  r.connection = flags.connection;
  r.traces = flags.traces;
  r.sets = flags.sets;
  r.compareFile = flags.compareFile;
  r.compareSets = flags.compareSets;
  r.output = outputFormat(flags.output);
  r.plot = flags.plot;
  auto options = replayOptions(flags);
  if (!options.ok()) return options.error();
  r.options = *options;
  auto cpu = requestFlag("cpu-request", flags.cpuRequest);
  if (!cpu.ok()) return cpu.error();
  auto memory = requestFlag("memory-request", flags.memoryRequest);
  if (!memory.ok()) return memory.error();
  r.target = {flags.replicas, *cpu, *memory};
  return r;
}

int runReplay(const ReplayFlags& flags) {
  auto request = requestOf(flags);
  if (!request.ok()) {
    std::cerr << "hpa-controller replay: " << request.error().message << "\n";
    return replay::kExitUnusableInput;
  }
  InputFiles inputs;
  auto outcome = replay::runCommand(
      *request, [&inputs](const std::string& argument) { return inputs.read(argument); });
  std::cout << outcome.output;
  std::cerr << outcome.messages;
  return outcome.exitCode;
}

}  // namespace

controller::DecisionFlagValues& addReplayCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<ReplayFlags>();
  auto* cmd = app.add_subcommand("replay",
                                 "What-if replay: run an HPA through a recorded metric trace with "
                                 "the controller's real decisions and "
                                 "simulated time, printing replicas over time and the scale "
                                 "events; --set and --compare try other settings "
                                 "on the same trace. Writes nothing anywhere.");
  cmd->add_option("-f,--filename", flags->files,
                  "the HPA and optionally its target workload (YAML or JSON, as kubectl get -o "
                  "yaml prints them; "
                  "'-' for stdin); repeatable. Without -f, --hpa is read from the cluster");
  cmd->add_option(
      "--hpa", flags->hpa,
      "namespace/name of the HPA: which one of the files, or, without -f, the one to read from the "
      "cluster (with its target)");
  addConnectionFlags(*cmd, flags->connection, "without -f: ");
  cmd->add_option("--trace", flags->traces,
                  "[METRIC[,KIND]=]FILE: a trace, CSV (time,metric,kind,value or the demo's "
                  "trajectory.csv) or a "
                  "Prometheus range-query export (JSON; METRIC names it, KIND is total or "
                  "per-pod); repeatable")
      ->required();
  cmd->add_option("--set", flags->sets,
                  "PATH=VALUE: override an HPA spec field, an annotation "
                  "(metadata.annotations.KEY) or a replay flag; repeatable");
  cmd->add_option("--compare", flags->compareFile,
                  "a second HPA file, replayed side by side on the same trace");
  cmd->add_option(
      "--compare-set", flags->compareSets,
      "PATH=VALUE: an override for the second run only (with or without --compare); repeatable");
  cmd->add_option("--replicas", flags->replicas,
                  "the target's replicas at the start (default: from the target, "
                  "else minReplicas)");
  cmd->add_option("--cpu-request", flags->cpuRequest,
                  "cpu request of each container of the pods (e.g. 100m)");
  cmd->add_option("--memory-request", flags->memoryRequest,
                  "memory request of each container of the pods (e.g. 64Mi)");
  cmd->add_option("--horizontal-pod-autoscaler-sync-period", flags->syncPeriod,
                  "the period for syncing the number of pods in horizontal pod autoscaler")
      ->capture_default_str();
  addDecisionFlags(*cmd, flags->decision);
  cmd->add_option("--readiness-delay", flags->readinessDelay,
                  "from a new pod's creation to Ready (simulated)")
      ->capture_default_str();
  cmd->add_option("--metric-window", flags->metricWindow, "the window the simulated metrics report")
      ->capture_default_str();
  cmd->add_option(
         "--reconcile-duration", flags->reconcileDuration,
         "what one reconcile takes: syncs come a sync period plus this apart, as in a cluster")
      ->capture_default_str();
  cmd->add_option("--duration", flags->duration,
                  "how long to replay (default: to the trace's last sample)");
  addOutputFlag(*cmd, flags->output);
  cmd->add_option(
      "--plot", flags->plot,
      "write a PNG plot of replicas and the trace (needs gnuplot; its script is written to "
      "$TMPDIR, else /tmp)");
  cmd->callback([flags, &run]() { run = [flags]() { return runReplay(*flags); }; });
  return flags->decision;
}

}  // namespace hpa::cmd
