#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "common/time.h"

namespace hpa::replicacalc {

// One pod's sample as the metrics client returns it: milli-units, when it was taken and over
// which window it was averaged.
struct PodMetric {
  std::int64_t value = 0;
  Time timestamp;
  Duration window{0};
  bool operator==(const PodMetric&) const = default;
};

// By pod name. Ordered so that sums (and thus results) never depend on hashing.
using PodMetricsInfo = std::map<std::string, PodMetric>;

}  // namespace hpa::replicacalc
