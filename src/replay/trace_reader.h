#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "replay/trace.h"

namespace hpa::replay {

// One --trace argument: `FILE`, `METRIC=FILE` or `METRIC,KIND=FILE`. The metric and kind name
// what a Prometheus export does not say; a CSV trace names its metrics itself.
struct TraceArgument {
  std::string file;
  std::string metric;              // empty: from the file
  std::optional<SeriesKind> kind;  // nullopt: total
};
Result<TraceArgument> parseTraceArgument(std::string_view text);

// Reads a trace file's text, CSV or a Prometheus range-query export (JSON, told apart by its
// first character). `name` is used in messages.
Result<Trace> readTrace(std::string_view name, std::string_view text,
                        const TraceArgument& argument);

}  // namespace hpa::replay
