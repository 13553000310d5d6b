#include "forecast/series.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpa::forecast {

namespace {
constexpr double kGap = std::numeric_limits<double>::quiet_NaN();
}  // namespace

std::size_t Grid::present() const {
  return static_cast<std::size_t>(
      std::count_if(values.begin(), values.end(), [](double v) { return !std::isnan(v); }));
}

Grid resample(std::span<const Sample> samples, Time from, Time now, Duration step) {
  Grid grid;
  grid.step = step;
  if (now <= from || step <= Duration::zero()) {
    grid.start = now;
    return grid;
  }
  const auto span = (now - from).count();
  const auto buckets = static_cast<std::size_t>((span + step.count() - 1) / step.count());
  grid.start = now - step * static_cast<long>(buckets);
  std::vector<double> sum(buckets, 0.0);
  std::vector<std::size_t> count(buckets, 0);
  for (const Sample& s : samples) {
    if (s.at > now || s.at <= from || !std::isfinite(s.value)) continue;
    const auto index = static_cast<std::size_t>(((s.at - grid.start).count() - 1) / step.count());
    sum[index] += s.value;
    ++count[index];
  }
  grid.values.assign(buckets, kGap);
  for (std::size_t i = 0; i < buckets; ++i) {
    if (count[i] > 0) grid.values[i] = sum[i] / static_cast<double>(count[i]);
  }
  return grid;
}

std::vector<double> removeMovingMean(std::span<const double> x, std::size_t period) {
  const std::size_t n = x.size();
  std::vector<double> prefixSum(n + 1, 0.0);
  std::vector<std::size_t> prefixCount(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const bool present = !std::isnan(x[i]);
    prefixSum[i + 1] = prefixSum[i] + (present ? x[i] : 0.0);
    prefixCount[i + 1] = prefixCount[i] + (present ? 1 : 0);
  }
  // An even period is centred by weighing the window's two ends by half (the classical 2xP
  // moving average); an odd one is centred as it is.
  const std::size_t half = period / 2;
  const double endWeight = period % 2 == 0 ? 0.5 : 1.0;
  std::vector<double> out(n, kGap);
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) continue;
    if (i < half || i + half >= n) {  // clipped at an end: the plain mean of what there is
      const std::size_t lo = i >= half ? i - half : 0;
      const std::size_t hi = std::min(n, i + half + 1);
      out[i] = x[i] - (prefixSum[hi] - prefixSum[lo]) /
                          static_cast<double>(prefixCount[hi] - prefixCount[lo]);
      continue;
    }
    double sum = prefixSum[i + half + 1] - prefixSum[i - half];
    double weight = static_cast<double>(prefixCount[i + half + 1] - prefixCount[i - half]);
    for (const std::size_t end : {i - half, i + half}) {
      if (std::isnan(x[end])) continue;
      sum -= (1 - endWeight) * x[end];
      weight -= 1 - endWeight;
    }
    out[i] = x[i] - sum / weight;
  }
  return out;
}

double autocorrelation(std::span<const double> x, std::size_t lag) {
  double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
  std::size_t pairs = 0;
  for (std::size_t i = 0; i + lag < x.size(); ++i) {
    const double a = x[i];
    const double b = x[i + lag];
    if (std::isnan(a) || std::isnan(b)) continue;
    sa += a;
    sb += b;
    saa += a * a;
    sbb += b * b;
    sab += a * b;
    ++pairs;
  }
  if (pairs < 3) return 0;
  const double n = static_cast<double>(pairs);
  const double cov = sab - sa * sb / n;
  const double va = saa - sa * sa / n;
  const double vb = sbb - sb * sb / n;
  if (va <= 0 || vb <= 0) return 0;
  return cov / std::sqrt(va * vb);
}

std::vector<double> detrendForSpectrum(std::span<const double> x) {
  double st = 0, sx = 0, stt = 0, stx = 0, n = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) continue;
    const double t = static_cast<double>(i);
    st += t;
    sx += x[i];
    stt += t * t;
    stx += t * x[i];
    n += 1;
  }
  const double denominator = n * stt - st * st;
  const double slope = (n > 1 && denominator > 0) ? (n * stx - st * sx) / denominator : 0.0;
  const double intercept = n > 0 ? (sx - slope * st) / n : 0.0;
  std::vector<double> out(x.size(), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isnan(x[i])) out[i] = x[i] - (intercept + slope * static_cast<double>(i));
  }
  return out;
}

double quantile(std::vector<double>& values, double q) {
  if (values.empty()) return kGap;
  std::sort(values.begin(), values.end());
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(position));
  const auto hi = std::min(lo + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * fraction;
}

double medianAbsoluteDeviation(std::span<const double> values, double center) {
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::abs(v - center));
  return quantile(deviations, 0.5);
}

}  // namespace hpa::forecast
