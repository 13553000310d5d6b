// One forecast over weeks of 5-minute samples: what the forecaster costs per HPA each time it is
// asked, the periodogram, both cycle checks and (when both cycles are found) the backtest included.
#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "forecast/forecaster.h"

namespace {

using namespace hpa;
using std::chrono::hours;
using std::chrono::minutes;

std::vector<forecast::Sample> fourWeeks(Time now) {
  std::mt19937 random(1);
  std::normal_distribution<double> noise(0, 5);
  std::vector<forecast::Sample> out;
  for (Time t = now - hours(24 * 28) + minutes(5); t <= now; t += minutes(5)) {
    const double h = std::chrono::duration<double, std::ratio<3600>>(t.time_since_epoch()).count();
    out.push_back({t, 100 + 50 * std::sin(2 * std::numbers::pi * h / 24) + noise(random)});
  }
  return out;
}

void BM_ForecastFourWeeks(benchmark::State& state) {
  const Time now = fromUnixSeconds(1'704'067'200 + 28 * 86400);
  const auto history = fourWeeks(now);
  forecast::Forecaster forecaster;
  // The plan for this size is made once and kept: the first call is not what each costs.
  benchmark::DoNotOptimize(forecaster.forecast(history, now, minutes(15)));
  for (auto _ : state) {
    auto result = forecaster.forecast(history, now, minutes(15));
    if (!result.prediction) state.SkipWithError("no forecast on a daily trace");
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_ForecastFourWeeks)->Unit(benchmark::kMicrosecond);

// Five weeks with quieter weekends: both cycles are confirmed, so the forecast also backtests
// each over the last three days to choose between them, the costliest path it has.
void BM_ForecastBothCycles(benchmark::State& state) {
  const Time now = fromUnixSeconds(1'704'067'200 + 35 * 86400 + 9 * 3600);
  std::mt19937 random(1);
  std::normal_distribution<double> noise(0, 4);
  std::vector<forecast::Sample> history;
  for (Time t = now - hours(24 * 35) + minutes(5); t <= now; t += minutes(5)) {
    const double h = std::chrono::duration<double, std::ratio<3600>>(t.time_since_epoch()).count();
    const long day = static_cast<long>(h / 24 + 3) % 7;  // 1970-01-01 was a Thursday: 0 is Monday
    const double daytime = std::exp(-std::pow((std::fmod(h, 24) - 11) / 2.5, 2) / 2);
    const double weekly = day == 5 ? 0.55 : day == 6 ? 0.45 : 1.0;
    history.push_back({t, (30 + 170 * daytime) * weekly + noise(random)});
  }
  forecast::Forecaster forecaster;
  benchmark::DoNotOptimize(forecaster.forecast(history, now, minutes(15)));
  for (auto _ : state) {
    auto result = forecaster.forecast(history, now, minutes(15));
    if (!result.prediction || !result.cycles[1].backtestError)
      state.SkipWithError("both cycles were not confirmed and backtested");
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_ForecastBothCycles)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
