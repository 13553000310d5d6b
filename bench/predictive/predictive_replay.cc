// The replays of `make bench-predictive` (bench/predictive/predictive_bench.py drives it): each
// generated trace replayed through the controller's real reconcile, with a three-minute pod
// start: reactive alone, with the forecast control in its default settings, with the control set
// to Crane's method (the maximum of the same phase over past cycles, times a margin), and with
// the forecast's margin at 1.05, 1.1 and 1.15. Prints one JSON document: each run's figures
// (replay/provisioning.h) over the weeks after the warm-up, and after the level shift's first week.

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/codec.h"
#include "common/yaml_json.h"
#include "replay/provisioning.h"
#include "replay/replay.h"
#include "traces.h"

namespace hpa::bench {
namespace {

using nlohmann::json;
using std::chrono::hours;
using std::chrono::minutes;

constexpr const char* kForecastAnnotation = "hpa-controller.io/forecast";

struct Mode {
  std::string name;
  std::string annotation;  // empty: no forecast
};

std::vector<Mode> defaultModes() {
  return {
      {"reactive", ""},
      {"forecast", "{mode: Active}"},
      {"crane", "{mode: Active, quantile: 1, trend: None, margin: 1.1, recent: 0s}"},
      // The forecast with other headroom: the frontier Crane's is compared on at its own cost.
      {"margin-1", "{mode: Active, margin: 1}"},
      {"margin-1.1", "{mode: Active, margin: 1.1}"},
      {"margin-1.15", "{mode: Active, margin: 1.15}"},
  };
}

struct Settings {
  std::vector<std::string> traces;
  // --mode NAME=ANNOTATION, repeated, replaces the three (to try settings); the plotted week's
  // forecast is the second mode's.
  std::vector<Mode> modes = defaultModes();
  // --seed-offset N: every trace's noise from its seed + N, the same shapes with other noise:
  // traces the defaults were not chosen on.
  std::uint64_t seedOffset = 0;
  TraceLayout layout;
  int warmupWeeks = 2;
  std::string weekFile;  // --week FILE: the seasonal trace's plotted week, as columns
  int week = 4;          // which (from 0): the fifth, when four weeks of history vote
};

// cpu at 60 % of a 1-core request: 0.6 cores a pod; 2 to 100 replicas.
api::HorizontalPodAutoscaler benchHpa(const Mode& mode) {
  auto docs = yamlDocumentsToJson(
      "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n"
      "metadata: {name: web, namespace: bench}\n"
      "spec:\n"
      "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n"
      "  minReplicas: 2\n  maxReplicas: 100\n"
      "  metrics:\n"
      "  - type: Resource\n"
      "    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}\n");
  auto hpa = api::decodeHorizontalPodAutoscaler(docs->front());
  if (!mode.annotation.empty()) hpa->metadata.annotations[kForecastAnnotation] = mode.annotation;
  return *hpa;
}

replay::ReplayTarget benchTarget() {
  replay::ReplayTarget t;
  t.kind = "Deployment";
  t.scale.metadata.name = "web";
  t.scale.metadata.namespace_ = "bench";
  t.scale.specReplicas = 5;
  t.scale.selector = "app=web";
  t.podTemplate.labels = api::Labels{{"app", "web"}};
  t.podTemplate.containers.push_back({"app", {{"cpu", 1000}}, false});
  return t;
}

replay::ReplayOptions benchOptions() {
  replay::ReplayOptions o;
  o.readinessDelay = minutes(3);  // a pod's creation to Ready
  return o;
}

json figures(const replay::Provisioning& p, const replay::Provisioning& strict) {
  return {{"podMinutesAboveTarget", p.podMinutesAboveTarget},
          {"podMinutesAboveTargetStrict", strict.podMinutesAboveTarget},
          {"replicaHours", p.replicaHours}};
}

// The figures of a run from `from` on: above target beyond the tolerance, and without it.
json measured(const replay::ReplayRun& run, const replay::Trace& trace, Duration from,
              const replay::ReplayOptions& options) {
  const auto targets = replay::perPodTargets(run.hpa, benchTarget().podTemplate);
  const double tolerance = replay::scaleUpTolerance(run.hpa, options);
  return figures(replay::measureProvisioning({run.ticks, trace, targets, tolerance, from}),
                 replay::measureProvisioning({run.ticks, trace, targets, 0, from}));
}

// One week of the seasonal trace every five minutes, in pods (at 0.6 cores a pod): hours since the
// week's Monday 00:00, the load's, the forecast's at the hour it forecasts, the floor, then each
// mode's replicas. What predictive_bench.py plots.
Status writeWeek(const Settings& settings, const std::vector<replay::ReplayRun>& runs) {
  std::FILE* f = std::fopen(settings.weekFile.c_str(), "w");
  if (f == nullptr) return Error::format("{}: cannot write", settings.weekFile);
  constexpr double kCoresPerPod = 0.6;
  const Duration from = hours(24 * 7 * settings.week);
  const auto hoursOf = [&](Duration d) {
    return std::chrono::duration<double, std::ratio<3600>>(d - from).count();
  };
  fmt::print(f, "# hour load forecast_hour forecast floor cycle");
  for (const Mode& mode : settings.modes) fmt::print(f, " {}", mode.name);
  fmt::print(f, "\n");
  const auto& ticks = runs.at(1).ticks;  // the forecast's
  Duration next = from;
  for (size_t i = 0; i < ticks.size() && ticks[i].at < from + hours(24 * 7); ++i) {
    if (ticks[i].at < next) continue;
    next += minutes(5);
    const replay::Tick& t = ticks[i];
    const double load = static_cast<double>(t.metrics.front().value.value_or(0)) / 1000;
    const auto& fc = t.forecast;
    fmt::print(f, "{:.4f} {:.3f} {} {} {} {}", hoursOf(t.at), load / kCoresPerPod,
               fc ? fmt::format("{:.4f}", hoursOf(t.at + fc->lead)) : "NaN",
               fc ? fmt::format("{:.3f}", fc->value / kCoresPerPod) : "NaN",
               fc && fc->floor ? fmt::format("{}", *fc->floor) : "NaN", fc ? fc->cycle : "-");
    for (const auto& run : runs)
      fmt::print(f, " {}", i < run.ticks.size() ? run.ticks[i].replicas : 0);
    fmt::print(f, "\n");
  }
  std::fclose(f);
  return {};
}

Result<json> runTrace(TraceSpec spec, const Settings& settings) {
  spec.seed += settings.seedOffset;
  const replay::Trace trace = generateTrace(spec, settings.layout);
  const replay::ReplayOptions options = benchOptions();
  const Duration warmup = hours(24 * 7 * settings.warmupWeeks);
  const Duration afterShift = levelShiftAt(settings.layout) + hours(24 * 7);
  const bool plotted =
      spec.name == "seasonal" && !settings.weekFile.empty() && settings.modes.size() >= 2;
  std::vector<replay::ReplayRun> kept;  // for the plotted week
  json runs = json::array();
  for (const Mode& mode : settings.modes) {
    const auto started = std::chrono::steady_clock::now();
    auto run = replay::replay(benchHpa(mode), benchTarget(), trace, options);
    if (!run.ok()) return Error::format("{} {}: {}", spec.name, mode.name, run.error().message);
    json out{{"mode", mode.name},
             {"annotation", mode.annotation},
             {"figures", measured(*run, trace, warmup, options)},
             {"seconds",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()}};
    if (spec.name == "level-shift") out["afterShift"] = measured(*run, trace, afterShift, options);
    runs.push_back(std::move(out));
    if (plotted) kept.push_back(std::move(*run));
  }
  if (plotted) {
    if (auto written = writeWeek(settings, kept); !written.ok()) return written.error();
  }
  return json{{"trace", spec.name},
              {"description", spec.description},
              {"seed", spec.seed},
              {"seasonal", spec.seasonal},
              {"runs", std::move(runs)}};
}

int usage(const std::string& why) {
  std::cerr << "predictive_replay: " << why
            << "\nusage: predictive_replay [--trace NAME]... [--weeks N] [--warmup-weeks N] "
               "[--week FILE] [--mode NAME=ANNOTATION]... [--seed-offset N]\n";
  return 2;
}

int run(int argc, char** argv) {
  Settings settings;
  std::vector<Mode> asked;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage(arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--trace") {
      settings.traces.push_back(value);
    } else if (arg == "--weeks") {
      settings.layout.weeks = std::atoi(value.c_str());
    } else if (arg == "--warmup-weeks") {
      settings.warmupWeeks = std::atoi(value.c_str());
    } else if (arg == "--week") {
      settings.weekFile = value;
    } else if (arg == "--seed-offset") {
      settings.seedOffset = std::strtoull(value.c_str(), nullptr, 10);
    } else if (arg == "--mode") {
      const auto eq = value.find('=');
      if (eq == std::string::npos || eq == 0) return usage("--mode needs NAME=ANNOTATION");
      asked.push_back({value.substr(0, eq), value.substr(eq + 1)});
    } else {
      return usage("unknown argument " + arg);
    }
  }
  if (settings.layout.weeks < 2 || settings.warmupWeeks < 0 ||
      settings.warmupWeeks >= settings.layout.weeks)
    return usage("--weeks must be at least 2 and more than --warmup-weeks");
  if (!asked.empty()) settings.modes = std::move(asked);
  if (settings.traces.empty()) {
    for (const auto& spec : traceSpecs()) settings.traces.push_back(spec.name);
  }
  json out{{"weeks", settings.layout.weeks},
           {"warmupWeeks", settings.warmupWeeks},
           {"traces", json::array()}};
  for (const auto& name : settings.traces) {
    const TraceSpec* spec = findTraceSpec(name);
    if (spec == nullptr) return usage("no trace " + name);
    auto result = runTrace(*spec, settings);
    if (!result.ok()) {
      std::cerr << "predictive_replay: " << result.error().message << "\n";
      return 1;
    }
    out["traces"].push_back(std::move(*result));
  }
  std::cout << out.dump(1) << "\n";
  return 0;
}

}  // namespace
}  // namespace hpa::bench

int main(int argc, char** argv) { return hpa::bench::run(argc, argv); }
