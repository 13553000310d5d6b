#pragma once

#include <string_view>

#include "common/result.h"
#include "replay/trace.h"

namespace hpa::replay {

// Reads a CSV trace. Two layouts, told apart by the header line:
//
//   time,metric,kind,value        (columns in any order; `kind` may be left out: total)
//   0,cpu,total,300m              time: seconds from the start (15, 15.5), a duration (1m30s)
//   15s,cpu,total,800m                  or an RFC 3339 instant (then offsets count from the
//   30s,http_requests,per-pod,12        earliest); metric: the HPA's name for it (cpu, memory,
//                                       a Pods/Object/External metric name); kind: total or
//                                       per-pod; value: a quantity in the metric's unit
//
//   seconds,load_milli,utilization,current,desired   (the demo's trajectory.csv, hack/demo.sh)
//   load_milli is the workload's total cpu demand in millicores: a total cpu series; current
//   and desired are kept as the recorded replicas.
//
// Blank lines and lines starting with '#' are skipped; fields may be double-quoted. Each
// series must be in time order. Errors name the file, line and column: "t.csv:4:9: value: ...".
Result<Trace> readCsvTrace(std::string_view name, std::string_view text);

}  // namespace hpa::replay
