#include "replay/command.h"

#include <fmt/format.h>

#include "explain/explain.h"
#include "replay/plot.h"
#include "replay/render.h"
#include "replay/trace_reader.h"

namespace hpa::replay {
namespace {

constexpr const char* kMessagePrefix = "hpa-controller replay: ";

std::string joined(const std::vector<std::string>& parts) {
  return fmt::format("{}", fmt::join(parts, ", "));
}

Result<explain::Snapshot> readFiles(const std::vector<std::string>& files,
                                    const InputReader& read) {
  std::vector<explain::SnapshotSource> sources;
  for (const auto& file : files) {
    auto source = read(file);
    if (!source.ok()) return source.error();
    sources.push_back(std::move(*source));
  }
  return explain::loadSnapshot(sources);
}

// The HPA --hpa names (or the only one) and the objects around it.
Result<explain::Snapshot> readHpa(const Request& request, const InputReader& read,
                                  const LiveReader& live) {
  if (!request.files.empty()) return readFiles(request.files, read);
  if (request.hpa.empty()) {
    return Error::of(
        "give the HPA with -f FILE, or --hpa namespace/name to read it from the cluster");
  }
  return live(request.connection, request.hpa);
}

Result<Trace> readTraces(const std::vector<std::string>& arguments, const InputReader& read) {
  std::vector<Trace> traces;
  for (const auto& a : arguments) {
    auto argument = parseTraceArgument(a);
    if (!argument.ok()) return argument.error();
    auto source = read(argument->file);
    if (!source.ok()) return source.error();
    auto trace = readTrace(source->name, source->text, *argument);
    if (!trace.ok()) return trace.error();
    traces.push_back(std::move(*trace));
  }
  return mergeTraces(std::move(traces));
}

Result<std::vector<Override>> parseOverrides(const std::vector<std::string>& texts) {
  std::vector<Override> out;
  for (const auto& t : texts) {
    auto o = parseOverride(t);
    if (!o.ok()) return o.error();
    out.push_back(*o);
  }
  return out;
}

// Run b: the --compare file's HPA (else the same one), with --set and then --compare-set.
Result<RunSettings> compared(const Request& request, const RunSettings& given,
                             const std::vector<Override>& sets, const ReplayTarget& target,
                             const InputReader& read) {
  RunSettings b = given;
  if (!request.compareFile.empty()) {
    auto other = readFiles({request.compareFile}, read);
    if (!other.ok()) return other.error();
    auto otherHpa = explain::chooseHpa(*other, other->hpas.size() == 1 ? "" : request.hpa);
    if (!otherHpa.ok())
      return Error::format("{}: {}", request.compareFile, otherHpa.error().message);
    b.hpa = **otherHpa;
  }
  auto compareSets = parseOverrides(request.compareSets);
  if (!compareSets.ok()) return compareSets.error();
  if (auto s = applyOverrides(b, sets); !s.ok()) return s.error();
  if (auto s = applyOverrides(b, *compareSets); !s.ok()) return s.error();
  if (auto s = checkRequests(b.hpa, target); !s.ok())
    return Error::format("--compare: {}", s.error().message);
  return b;
}

// What distinguishes each run, for the output's headers.
std::vector<std::string> descriptions(const Request& request, bool compare) {
  if (!compare) return {joined(request.sets)};
  std::vector<std::string> what;
  if (!request.compareFile.empty()) what.push_back(request.compareFile);
  what.insert(what.end(), request.compareSets.begin(), request.compareSets.end());
  return {request.sets.empty() ? std::string("as given") : joined(request.sets), joined(what)};
}

std::vector<RenderedRun> rendered(const Replays& replays) {
  std::vector<RenderedRun> out;
  for (size_t i = 0; i < replays.runs.size(); ++i)
    out.push_back({&replays.runs[i], &replays.settings[i].options});
  return out;
}

}  // namespace

Result<Replays> replayRequest(const Request& request, const InputReader& read,
                              const LiveReader& live) {
  auto snapshot = readHpa(request, read, live);
  if (!snapshot.ok()) return snapshot.error();
  auto chosen = explain::chooseHpa(*snapshot, request.hpa);
  if (!chosen.ok()) return chosen.error();
  Replays replays;
  auto trace = readTraces(request.traces, read);
  if (!trace.ok()) return trace.error();
  replays.trace = std::move(*trace);

  auto sets = parseOverrides(request.sets);
  if (!sets.ok()) return sets.error();
  RunSettings given{**chosen, request.options};
  if (auto s = applyOverrides(given, *sets); !s.ok()) return s.error();
  auto target = targetFor(given.hpa, *snapshot, request.target);
  if (!target.ok()) return target.error();
  replays.settings.push_back(given);
  const bool compare = !request.compareFile.empty() || !request.compareSets.empty();
  if (compare) {
    auto b = compared(request, RunSettings{**chosen, request.options}, *sets, *target, read);
    if (!b.ok()) return b.error();
    replays.settings.push_back(std::move(*b));
  }

  const auto described = descriptions(request, compare);
  for (size_t i = 0; i < replays.settings.size(); ++i) {
    auto run = replay(replays.settings[i].hpa, *target, replays.trace, replays.settings[i].options);
    if (!run.ok()) return run.error();
    run->label = std::string(1, static_cast<char>('a' + i));  // a, b
    run->description = described[i];
    replays.runs.push_back(std::move(*run));
  }
  return replays;
}

Outcome runCommand(const Request& request, const InputReader& read, const LiveReader& live) {
  auto replays = replayRequest(request, read, live);
  if (!replays.ok())
    return {kExitUnusableInput, "", kMessagePrefix + replays.error().message + "\n"};
  const auto runs = rendered(*replays);
  Outcome outcome;
  outcome.output = request.output == "text" ? renderText(runs, replays->trace)
                                            : renderJson(runs, replays->trace).dump(2) + "\n";
  if (request.plot.empty()) return outcome;
  if (auto s = runGnuplot(gnuplotScript(runs, replays->trace, request.plot)); !s.ok()) {
    outcome.exitCode = kExitPlotFailed;
    outcome.messages =
        fmt::format("{}--plot {}: {}\n", kMessagePrefix, request.plot, s.error().message);
  } else {
    outcome.messages = fmt::format("{}plot written to {}\n", kMessagePrefix, request.plot);
  }
  return outcome;
}

}  // namespace hpa::replay
