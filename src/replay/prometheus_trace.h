#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "replay/trace.h"

namespace hpa::replay {

// What a Prometheus export does not say about itself.
struct PrometheusSeriesOptions {
  // The HPA's name for the metric; empty: the series' __name__ label (which must then be the
  // same on every series).
  std::string metric;
  SeriesKind kind = SeriesKind::Total;
};

// Reads the JSON a Prometheus range query returns (/api/v1/query_range, also what
// `promtool query range -o json` prints):
//   {"status":"success","data":{"resultType":"matrix","result":[
//     {"metric":{"__name__":"...","pod":"web-1"},"values":[[1700000000,"0.25"],...]}, ...]}}
// Several series (one per pod, say) are summed at each timestamp for a total series and
// averaged for a per-pod one; a series missing a timestamp others have counts as absent there.
// Values are in the metric's unit (cpu: cores); NaN samples are gaps. Timestamps are Unix
// seconds, so the trace has an absolute origin. Errors name the file and the JSON path.
Result<Trace> readPrometheusTrace(std::string_view name, std::string_view text,
                                  const PrometheusSeriesOptions& options);

}  // namespace hpa::replay
