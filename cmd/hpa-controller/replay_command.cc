#include "replay_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "api/quantity.h"
#include "common/time.h"
#include "explain/explain.h"
#include "explain/snapshot.h"
#include "kube/client_config.h"
#include "kube/rest_client.h"
#include "replay/live_source.h"
#include "replay/overrides.h"
#include "replay/plot.h"
#include "replay/render.h"
#include "replay/replay.h"
#include "replay/target.h"
#include "replay/trace_reader.h"
#include "common/quote.h"

namespace hpa::cmd {
namespace {

// Exit codes as explain's: a replay (whatever the controller decided) is 0; unusable input 2.
constexpr int kExitReplayed = 0;
constexpr int kExitUnusableInput = 2;
constexpr int kExitPlotFailed = 1;

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
  double tolerance = 0.1;
  std::string downscaleStabilization = "5m";
  std::string cpuInitializationPeriod = "5m";
  std::string initialReadinessDelay = "30s";
  std::string readinessDelay = "30s";
  std::string metricWindow = "30s";
  std::string reconcileDuration = "50ms";
  std::string duration;
  std::string output;
  std::string plot;
  kube::ConnectionFlags connection;  // live: no -f, the HPA --hpa names is read from the cluster
};

int fail(const std::string& message) {
  std::cerr << "hpa-controller replay: " << message << "\n";
  return kExitUnusableInput;
}

Result<std::string> readFile(const std::string& name) {
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

Result<Duration> durationFlag(const std::string& flag, const std::string& value, bool positive = false) {
  auto d = parseGoDuration(value);
  if (!d.ok()) return Error::format("invalid value {} for --{}: {}", quote(value), flag, d.error().message);
  if (d->count() < 0 || (positive && d->count() == 0)) {
    return Error::format("invalid value {} for --{}: must be {}", quote(value), flag, positive ? "positive" : "not negative");
  }
  return d;
}

Result<std::optional<std::int64_t>> requestFlag(const std::string& flag, const std::string& value) {
  if (value.empty()) return std::optional<std::int64_t>();
  auto q = api::Quantity::parse(value);
  if (!q.ok() || q->sign() <= 0) return Error::format("invalid value {} for --{}: expected a positive quantity", quote(value), flag);
  return std::optional<std::int64_t>(q->milliValue());
}

Result<replay::ReplayOptions> replayOptions(const ReplayFlags& f) {
  replay::ReplayOptions o;
  if (f.tolerance < 0) return Error::of("--horizontal-pod-autoscaler-tolerance must not be negative");
  o.controller.tolerance = f.tolerance;
  struct D {
    const char* flag;
    const std::string* value;
    Duration* target;
    bool positive;
  };
  const D durations[] = {
      {"horizontal-pod-autoscaler-sync-period", &f.syncPeriod, &o.controller.syncPeriod, true},
      {"horizontal-pod-autoscaler-downscale-stabilization", &f.downscaleStabilization,
       &o.controller.downscaleStabilizationWindow, false},
      {"horizontal-pod-autoscaler-cpu-initialization-period", &f.cpuInitializationPeriod,
       &o.controller.cpuInitializationPeriod, false},
      {"horizontal-pod-autoscaler-initial-readiness-delay", &f.initialReadinessDelay,
       &o.controller.delayOfInitialReadinessStatus, false},
      {"readiness-delay", &f.readinessDelay, &o.readinessDelay, false},
      {"metric-window", &f.metricWindow, &o.metricWindow, false},
      {"reconcile-duration", &f.reconcileDuration, &o.reconcileDuration, false},
  };
  for (const auto& d : durations) {
    auto v = durationFlag(d.flag, *d.value, d.positive);
    if (!v.ok()) return v.error();
    *d.target = *v;
  }
  if (!f.duration.empty()) {
    auto v = durationFlag("duration", f.duration);
    if (!v.ok()) return v.error();
    o.duration = *v;
  }
  return o;
}

Result<explain::Snapshot> loadFiles(const std::vector<std::string>& files) {
  std::vector<explain::SnapshotSource> sources;
  int stdinUses = 0;
  for (const auto& file : files) {
    if (file == "-" && ++stdinUses > 1) return Error::of("standard input (-) can be given only once");
    auto text = readFile(file);
    if (!text.ok()) return text.error();
    sources.push_back({file == "-" ? "<stdin>" : file, std::move(*text)});
  }
  return explain::loadSnapshot(sources);
}

// The HPA --hpa names and its target, from the cluster of --kubeconfig / --context.
Result<explain::Snapshot> loadLive(const ReplayFlags& flags) {
  if (flags.hpa.empty()) return Error::of("give the HPA with -f FILE, or --hpa namespace/name to read it from the cluster");
  auto config = kube::resolveRestConfig(flags.connection);
  if (!config.ok()) return config.error();
  RealClock clock;
  auto client = kube::RestClient::create(*config, clock, Logger::discard());
  if (!client.ok()) return client.error();
  auto sources = replay::fetchLive(**client, flags.hpa);
  if (!sources.ok()) return sources.error();
  return explain::loadSnapshot(*sources);
}

Result<replay::Trace> loadTraces(const std::vector<std::string>& arguments) {
  std::vector<replay::Trace> traces;
  for (const auto& a : arguments) {
    auto argument = replay::parseTraceArgument(a);
    if (!argument.ok()) return argument.error();
    auto text = readFile(argument->file);
    if (!text.ok()) return text.error();
    auto trace = replay::readTrace(argument->file == "-" ? "<stdin>" : argument->file, *text, *argument);
    if (!trace.ok()) return trace.error();
    traces.push_back(std::move(*trace));
  }
  return replay::mergeTraces(std::move(traces));
}

Result<std::vector<replay::Override>> parseOverrides(const std::vector<std::string>& texts) {
  std::vector<replay::Override> out;
  for (const auto& t : texts) {
    auto o = replay::parseOverride(t);
    if (!o.ok()) return o.error();
    out.push_back(*o);
  }
  return out;
}

int runReplay(const ReplayFlags& flags) {
  auto options = replayOptions(flags);
  if (!options.ok()) return fail(options.error().message);
  auto cpu = requestFlag("cpu-request", flags.cpuRequest);
  auto memory = requestFlag("memory-request", flags.memoryRequest);
  for (const auto* r : {&cpu, &memory}) {
    if (!r->ok()) return fail(r->error().message);
  }
  std::string output = flags.output;
  if (output.empty()) output = isatty(STDOUT_FILENO) ? "text" : "json";

  auto snapshot = flags.files.empty() ? loadLive(flags) : loadFiles(flags.files);
  if (!snapshot.ok()) return fail(snapshot.error().message);
  auto chosen = explain::chooseHpa(*snapshot, flags.hpa);
  if (!chosen.ok()) return fail(chosen.error().message);
  auto trace = loadTraces(flags.traces);
  if (!trace.ok()) return fail(trace.error().message);

  auto sets = parseOverrides(flags.sets);
  if (!sets.ok()) return fail(sets.error().message);
  replay::RunSettings a{**chosen, *options};
  if (auto s = replay::applyOverrides(a, *sets); !s.ok()) return fail(s.error().message);
  auto target = replay::targetFor(a.hpa, *snapshot, {flags.replicas, *cpu, *memory});
  if (!target.ok()) return fail(target.error().message);

  std::vector<replay::RunSettings> settings{a};
  std::vector<std::string> labels{"a"};
  std::vector<std::string> descriptions{fmt::format("{}", fmt::join(flags.sets, ", "))};
  const bool compare = !flags.compareFile.empty() || !flags.compareSets.empty();
  if (compare) {
    replay::RunSettings b{**chosen, *options};
    if (!flags.compareFile.empty()) {
      auto other = loadFiles({flags.compareFile});
      if (!other.ok()) return fail(other.error().message);
      auto otherHpa = explain::chooseHpa(*other, other->hpas.size() == 1 ? "" : flags.hpa);
      if (!otherHpa.ok()) return fail(flags.compareFile + ": " + otherHpa.error().message);
      b.hpa = **otherHpa;
    }
    auto compareSets = parseOverrides(flags.compareSets);
    if (!compareSets.ok()) return fail(compareSets.error().message);
    if (auto s = replay::applyOverrides(b, *sets); !s.ok()) return fail(s.error().message);
    if (auto s = replay::applyOverrides(b, *compareSets); !s.ok()) return fail(s.error().message);
    if (auto s = replay::checkRequests(b.hpa, *target); !s.ok()) return fail("--compare: " + s.error().message);
    settings.push_back(b);
    labels.push_back("b");
    std::vector<std::string> what;
    if (!flags.compareFile.empty()) what.push_back(flags.compareFile);
    what.insert(what.end(), flags.compareSets.begin(), flags.compareSets.end());
    descriptions = {flags.sets.empty() ? std::string() : fmt::format("{}", fmt::join(flags.sets, ", ")),
                    fmt::format("{}", fmt::join(what, ", "))};
    if (descriptions[0].empty()) descriptions[0] = "as given";
  }

  std::vector<replay::ReplayRun> runs;
  for (size_t i = 0; i < settings.size(); ++i) {
    auto run = replay::replay(settings[i].hpa, *target, *trace, settings[i].options);
    if (!run.ok()) return fail(run.error().message);
    run->label = labels[i];
    run->description = descriptions[i];
    runs.push_back(std::move(*run));
  }
  std::vector<replay::RenderedRun> rendered;
  for (size_t i = 0; i < runs.size(); ++i) rendered.push_back({&runs[i], &settings[i].options});

  if (output == "json") {
    std::cout << replay::renderJson(rendered, *trace).dump(2) << "\n";
  } else {
    std::cout << replay::renderText(rendered, *trace);
  }
  if (!flags.plot.empty()) {
    if (auto s = replay::runGnuplot(replay::gnuplotScript(rendered, *trace, flags.plot)); !s.ok()) {
      std::cerr << "hpa-controller replay: --plot " << flags.plot << ": " << s.error().message << "\n";
      return kExitPlotFailed;
    }
    std::cerr << "hpa-controller replay: plot written to " << flags.plot << "\n";
  }
  return kExitReplayed;
}

}  // namespace

void addReplayCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<ReplayFlags>();
  auto* cmd = app.add_subcommand(
      "replay",
      "What-if replay: run an HPA through a recorded metric trace with the controller's real decisions and "
      "simulated time, printing replicas over time and the scale events; --set and --compare try other settings "
      "on the same trace. Writes nothing anywhere.");
  cmd->add_option("-f,--filename", flags->files,
                  "the HPA and optionally its target workload (YAML or JSON, as kubectl get -o yaml prints them; "
                  "'-' for stdin); repeatable. Without -f, --hpa is read from the cluster");
  cmd->add_option("--hpa", flags->hpa,
                  "namespace/name of the HPA: which one of the files, or, without -f, the one to read from the "
                  "cluster (with its target)");
  cmd->add_option("--kubeconfig", flags->connection.kubeconfig,
                  "without -f: path to a kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  cmd->add_option("--context", flags->connection.context, "without -f: the kubeconfig context to use");
  cmd->add_option("--master", flags->connection.master,
                  "without -f: the address of the Kubernetes API server (overrides any value in kubeconfig)");
  cmd->add_option("--trace", flags->traces,
                  "[METRIC[,KIND]=]FILE: a trace, CSV (time,metric,kind,value or the demo's trajectory.csv) or a "
                  "Prometheus range-query export (JSON; METRIC names it, KIND is total or per-pod); repeatable")
      ->required();
  cmd->add_option("--set", flags->sets, "PATH=VALUE: override an HPA spec field or a replay flag; repeatable");
  cmd->add_option("--compare", flags->compareFile, "a second HPA file, replayed side by side on the same trace");
  cmd->add_option("--compare-set", flags->compareSets,
                  "PATH=VALUE: an override for the second run only (with or without --compare); repeatable");
  cmd->add_option("--replicas", flags->replicas, "the target's replicas at the start (default: from the target, "
                                                 "else minReplicas)");
  cmd->add_option("--cpu-request", flags->cpuRequest, "cpu request of each container of the pods (e.g. 100m)");
  cmd->add_option("--memory-request", flags->memoryRequest, "memory request of each container of the pods (e.g. 64Mi)");
  cmd->add_option("--horizontal-pod-autoscaler-sync-period", flags->syncPeriod,
                  "the period for syncing the number of pods in horizontal pod autoscaler")
      ->capture_default_str();
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
  cmd->add_option("--readiness-delay", flags->readinessDelay, "from a new pod's creation to Ready (simulated)")
      ->capture_default_str();
  cmd->add_option("--metric-window", flags->metricWindow, "the window the simulated metrics report")
      ->capture_default_str();
  cmd->add_option("--reconcile-duration", flags->reconcileDuration,
                  "what one reconcile takes: syncs come a sync period plus this apart, as in a cluster")
      ->capture_default_str();
  cmd->add_option("--duration", flags->duration, "how long to replay (default: to the trace's last sample)");
  cmd->add_option("-o,--output", flags->output, "text or json (default: text on a terminal, json otherwise)")
      ->check(CLI::IsMember({"json", "text"}));
  cmd->add_option("--plot", flags->plot,
                  "write a PNG plot of replicas and the trace (needs gnuplot; its script is written to "
                  "$TMPDIR, else /tmp)");
  cmd->callback([flags, &run]() { run = [flags]() { return runReplay(*flags); }; });
}

}  // namespace hpa::cmd
