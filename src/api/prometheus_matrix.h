#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/time.h"

namespace hpa::api {

// The series of a Prometheus matrix that have a value at one instant, summed.
struct MatrixInstant {
  std::int64_t sumMilli = 0;  // the values in milli-units, each rounded as Quantity::milliValue
  int series = 0;             // how many series had a value here (NaN is no value: a gap)
};

// A Prometheus range query's result, its series summed per timestamp: the one reading of that
// answer, for replay's traces and the cluster's forecast history alike.
struct PrometheusMatrix {
  // Each series' __name__ label in result order, "" for one without (an expression's result).
  std::vector<std::string> names;
  // Every timestamp any series has a sample at, NaN ones included (`series` 0 there).
  std::map<Time, MatrixInstant> instants;
};

// Reads the JSON of /api/v1/query_range (also what `promtool query range -o json` prints):
//   {"status":"success","data":{"resultType":"matrix","result":[
//     {"metric":{"__name__":"...","pod":"web-1"},"values":[[1700000000,"0.25"],...]}, ...]}}
// Values are strings as Prometheus writes them ("0.25", "1.5e-1", "NaN"); infinities are
// refused. Timestamps are Unix seconds and increase within a series. An answer with status
// "error" is an error carrying Prometheus' own message. Errors name the JSON path
// ("data.result[1].values[0][1]: ...") and never throw.
Result<PrometheusMatrix> readPrometheusMatrix(const nlohmann::json& root);

}  // namespace hpa::api
