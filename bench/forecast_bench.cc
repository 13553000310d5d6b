// One forecast over four weeks of 5-minute samples (8064, a daily cycle, noise): what the
// forecaster costs per HPA each time it is asked, the periodogram and both cycle checks included.
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

}  // namespace

BENCHMARK_MAIN();
