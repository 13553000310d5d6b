#include "controls/forecast_history.h"

namespace hpa::controls {

std::vector<forecast::Sample> samplesOf(const api::PrometheusMatrix& matrix) {
  std::vector<forecast::Sample> samples;
  samples.reserve(matrix.instants.size());
  for (const auto& [at, sum] : matrix.instants) {
    if (sum.series > 0) samples.push_back({at, static_cast<double>(sum.sumMilli) / 1000.0});
  }
  return samples;
}

}  // namespace hpa::controls
