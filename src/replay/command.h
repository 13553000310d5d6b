#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "explain/snapshot.h"
#include "kube/client_config.h"
#include "replay/live_source.h"
#include "replay/overrides.h"
#include "replay/replay.h"
#include "replay/target.h"
#include "replay/trace.h"

namespace hpa::replay {

// Exit codes, as explain's: a replay (whatever the controller decided) is 0; unusable input 2;
// a replay whose --plot could not be drawn 1 (its output was printed).
inline constexpr int kExitReplayed = 0;
inline constexpr int kExitPlotFailed = 1;
inline constexpr int kExitUnusableInput = 2;

// Reads one input argument of the command whole: a file, or standard input for "-". The
// source's name is what messages call it.
using InputReader = std::function<Result<explain::SnapshotSource>(const std::string& argument)>;
// The HPA `key` and its target from the cluster `connection` names (readLive, or a test's own).
using LiveReader = std::function<Result<explain::Snapshot>(const kube::ConnectionFlags& connection,
                                                           const std::string& key)>;

// What `hpa-controller replay` is asked: its flags, their values parsed.
struct Request {
  std::vector<std::string> files;  // -f: the HPA and optionally its target; none: from the cluster
  std::string hpa;  // --hpa namespace/name: which HPA of the files, or of the cluster
  kube::ConnectionFlags connection;      // without -f: --kubeconfig, --context, --master
  std::vector<std::string> traces;       // --trace [METRIC[,KIND]=]FILE
  std::vector<std::string> sets;         // --set PATH=VALUE, for every run
  std::string compareFile;               // --compare: a second HPA file, run b
  std::vector<std::string> compareSets;  // --compare-set PATH=VALUE, for run b only
  TargetFlags target;                    // --replicas, --cpu-request, --memory-request
  ReplayOptions options;                 // the controller's and the simulation's settings
  std::string output = "json";           // -o: text or json
  std::string plot;                      // --plot PNG; empty: no plot
};

// The runs a request asks for on one trace: run a, and run b with --compare or --compare-set.
// settings[i] is what runs[i] was run with.
struct Replays {
  Trace trace;
  std::vector<RunSettings> settings;
  std::vector<ReplayRun> runs;
};

// Reads the HPA (from the files, or from the cluster without -f) and the traces, applies the
// overrides and runs every replay. Errors are unusable input, each naming what was wrong.
Result<Replays> replayRequest(const Request& request, const InputReader& read,
                              const LiveReader& live = readLive);

// What the command prints, and the exit code it ends with.
struct Outcome {
  int exitCode = kExitReplayed;
  std::string output;    // for standard output: the replays in the -o format
  std::string messages;  // for standard error: why it failed, or where the plot went
};

// The whole command: the replays, rendered as -o says, and the plot when --plot asks for one.
Outcome runCommand(const Request& request, const InputReader& read,
                   const LiveReader& live = readLive);

}  // namespace hpa::replay
