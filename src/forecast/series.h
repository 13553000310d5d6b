#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "common/time.h"

namespace hpa::forecast {

// One observation of a metric.
struct Sample {
  Time at;
  double value = 0;
};

// A series on a regular grid: bucket i is the mean of the samples in
// (start + i * step, start + (i + 1) * step]; NaN where none fell (a gap).
struct Grid {
  Time start;
  Duration step{};
  std::vector<double> values;

  std::size_t present() const;
  // The instant that ends bucket i (its samples are at or before it).
  Time end(std::size_t i) const { return start + step * static_cast<long>(i + 1); }
};

// The samples in (from, now] bucketed by `step`, the last bucket ending at `now`. Samples after
// `now` or at or before `from` are not read: what the grid holds depends on the past only.
Grid resample(std::span<const Sample> samples, Time from, Time now, Duration step);

// x - (mean of the present values in the window of `period` buckets centred on each bucket,
// shorter at the ends). A period-long mean holds nothing of a cycle of that period, and all of a
// slow drift, so the residual keeps the cycle and drops trend and level: a random walk, highly
// autocorrelated at every lag, leaves little that repeats. Gaps stay NaN.
std::vector<double> removeMovingMean(std::span<const double> x, std::size_t period);

// The correlation (Pearson) of the pairs (x[i], x[i + lag]) where both are present; 0 with fewer
// than 3 pairs or no variance.
double autocorrelation(std::span<const double> x, std::size_t lag);

// x with its least-squares line removed and gaps at 0: what the periodogram reads.
std::vector<double> detrendForSpectrum(std::span<const double> x);

// The q-quantile (linear interpolation) of `values`, which it reorders; NaN when empty.
double quantile(std::vector<double>& values, double q);
// The median absolute deviation from `center`.
double medianAbsoluteDeviation(std::span<const double> values, double center);

}  // namespace hpa::forecast
