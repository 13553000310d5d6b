#include "forecast/series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "forecast/spectrum.h"

namespace hpa::forecast {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const Time kNow = fromUnixSeconds(1'700'000'000);

TEST(Resample, AveragesEachBucketEndingAtNowAndLeavesGaps) {
  const std::vector<Sample> samples{
      {kNow - minutes(14), 1.0},  // bucket (now-15m, now-10m]
      {kNow - minutes(11), 3.0},  // same bucket
      {kNow - minutes(5), 7.0},   // the end of (now-10m, now-5m]
      {kNow, 10.0},               // the end of the last bucket
      {kNow + seconds(1), 1e9},   // after now: never read
      {kNow - minutes(15), 1e9},  // at `from`: not read
  };
  const Grid grid = resample(samples, kNow - minutes(15), kNow, minutes(5));
  ASSERT_EQ(grid.values.size(), 3u);
  EXPECT_EQ(grid.start, kNow - minutes(15));
  EXPECT_DOUBLE_EQ(grid.values[0], 2.0);
  EXPECT_DOUBLE_EQ(grid.values[1], 7.0);
  EXPECT_DOUBLE_EQ(grid.values[2], 10.0);
  EXPECT_EQ(grid.present(), 3u);

  const Grid sparse = resample({{{kNow - minutes(12), 4.0}}}, kNow - minutes(15), kNow, minutes(5));
  ASSERT_EQ(sparse.values.size(), 3u);
  EXPECT_DOUBLE_EQ(sparse.values[0], 4.0);
  EXPECT_TRUE(std::isnan(sparse.values[1]));
  EXPECT_TRUE(std::isnan(sparse.values[2]));
  EXPECT_EQ(sparse.present(), 1u);
}

TEST(Periodogram, PeaksAtTheFrequencyOfASingleSine) {
  Spectrum spectrum;
  const std::size_t n = 1024;
  const double amplitude = 2.0;
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = amplitude * std::sin(2 * std::numbers::pi * 16.0 * static_cast<double>(i) / n);
  }
  const std::vector<double> power = spectrum.periodogram(x);
  ASSERT_EQ(power.size(), n / 2 + 1);
  // |X_16| = A n / 2, so |X_16|^2 / n = A^2 n / 4; every other bin holds nothing.
  EXPECT_NEAR(power[16], amplitude * amplitude * n / 4, 1e-6);
  for (std::size_t k = 0; k < power.size(); ++k) {
    if (k != 16) {
      EXPECT_LT(power[k], 1e-12) << "bin " << k;
    }
  }
}

TEST(Periodogram, PadsToAPowerOfTwoAndKeepsThePeak) {
  EXPECT_EQ(Spectrum::paddedSize(1000), 1024u);
  EXPECT_EQ(Spectrum::paddedSize(1024), 1024u);
  EXPECT_EQ(Spectrum::paddedSize(1025), 2048u);
  Spectrum spectrum;
  // 1000 samples of a period of 50 samples: padded to 1024, the peak is at bin 1024/50 ~ 20.5.
  std::vector<double> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = std::cos(2 * std::numbers::pi * static_cast<double>(i) / 50.0);
  }
  const std::vector<double> power = spectrum.periodogram(x);
  const auto peak = std::max_element(power.begin(), power.end()) - power.begin();
  EXPECT_TRUE(peak == 20 || peak == 21) << peak;
  EXPECT_TRUE(spectrum.periodogram({}).empty());
}

TEST(Autocorrelation, IsOneAtTheLagOfARepeatingSeriesAndSkipsGaps) {
  std::vector<double> x(400);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = std::sin(2 * std::numbers::pi * static_cast<double>(i) / 40.0);
  }
  EXPECT_NEAR(autocorrelation(x, 40), 1.0, 1e-9);
  EXPECT_NEAR(autocorrelation(x, 20), -1.0, 1e-9);
  x[5] = std::nan("");
  x[45] = std::nan("");
  EXPECT_NEAR(autocorrelation(x, 40), 1.0, 1e-9);
  EXPECT_EQ(autocorrelation(std::vector<double>(10, 1.0), 2), 0.0);  // no variance
}

TEST(RemoveMovingMean, KeepsACycleAndDropsALinearTrend) {
  std::vector<double> x(480);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double t = static_cast<double>(i);
    x[i] = 5.0 * t + 10.0 * std::sin(2 * std::numbers::pi * t / 48.0);
  }
  const std::vector<double> residual = removeMovingMean(x, 48);
  // Away from the ends the window is a whole period: what is left is the cycle alone.
  for (std::size_t i = 48; i + 48 < x.size(); ++i) {
    const double cycle = 10.0 * std::sin(2 * std::numbers::pi * static_cast<double>(i) / 48.0);
    EXPECT_NEAR(residual[i], cycle, 1e-6) << i;
  }
}

TEST(Quantile, InterpolatesAndTheMadIsRobust) {
  std::vector<double> v{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile(v, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 1.0);
  std::vector<double> empty;
  EXPECT_TRUE(std::isnan(quantile(empty, 0.5)));
  const std::vector<double> outlier{10, 10, 11, 9, 1000};
  EXPECT_DOUBLE_EQ(medianAbsoluteDeviation(outlier, 10), 1.0);
}

}  // namespace
}  // namespace hpa::forecast
