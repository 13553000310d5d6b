#pragma once

// The generated traces of `make bench-predictive`: a workload's total cpu demand, one sample a
// minute, each trace from its own seed, so that a run reproduces every value.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/time.h"
#include "replay/trace.h"

namespace hpa::bench {

struct TraceSpec {
  std::string name;
  std::string description;
  std::uint64_t seed = 0;
  bool seasonal = true;  // a daily and weekly cycle (all but the random walk)
};

// The traces, in the order the table shows them.
const std::vector<TraceSpec>& traceSpecs();
const TraceSpec* findTraceSpec(const std::string& name);

struct TraceLayout {
  int weeks = 6;
  // The trace starts on a Monday at midnight (UTC), as the weekly shape assumes.
  Time origin = fromUnixSeconds(1'767'571'200);  // 2026-01-05T00:00:00Z
};

// When the level-shift trace's load doubles: halfway.
Duration levelShiftAt(const TraceLayout& layout);

replay::Trace generateTrace(const TraceSpec& spec, const TraceLayout& layout);

}  // namespace hpa::bench
