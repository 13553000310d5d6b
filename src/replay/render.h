#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "replay/replay.h"
#include "replay/trace.h"

namespace hpa::replay {

// One replayed run with what it was run with, for rendering.
struct RenderedRun {
  const ReplayRun* run = nullptr;
  const ReplayOptions* options = nullptr;
};

// The `-o text` report: a header per run, one line per sync (the trace's values, what the
// controller saw and decided, replicas, Ready pods, events), the scale events and a summary.
// With two runs, the lines put them side by side on the same trace. Recorded replicas (the
// demo's trajectory.csv has them) get a column of their own.
std::string renderText(const std::vector<RenderedRun>& runs, const Trace& trace);

// The `-o json` document (schema in the README).
nlohmann::json renderJson(const std::vector<RenderedRun>& runs, const Trace& trace);

}  // namespace hpa::replay
