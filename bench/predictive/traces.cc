#include "traces.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace hpa::bench {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

constexpr int kMinutesPerDay = 24 * 60;
constexpr int kMinutesPerWeek = 7 * kMinutesPerDay;

// The demand of a weekday, in cores: a night floor, a morning peak and a smaller evening one. The
// morning ramp (about 6 cores an hour at its steepest) is what a reactive autoscaler with a
// three-minute pod start trails.
double dailyShape(double hour) {
  const auto bump = [](double h, double center, double width) {
    const double d = (h - center) / width;
    return std::exp(-d * d / 2);
  };
  return 3 + 17 * bump(hour, 11, 2.5) + 9 * bump(hour, 20, 1.8);
}

// Weekdays in full; Saturday and Sunday a little over half.
double weeklyFactor(int day) {
  if (day == 5) return 0.55;
  if (day == 6) return 0.45;
  return 1.0;
}

double seasonal(int minute) {
  const int day = (minute / kMinutesPerDay) % 7;
  const double hour = static_cast<double>(minute % kMinutesPerDay) / 60.0;
  return dailyShape(hour) * weeklyFactor(day);
}

// Noise that lasts (an AR(1) process, about 4 %, correlated over tens of minutes) and noise that
// does not (2 % a sample), both multiplicative.
class Noise {
 public:
  explicit Noise(std::uint64_t seed) : random_(seed) {}
  double next() {
    slow_ = 0.97 * slow_ + 0.01 * normal_(random_);
    return std::max(0.05, 1 + slow_ + 0.02 * normal_(random_));
  }

 private:
  std::mt19937_64 random_;
  std::normal_distribution<double> normal_{0, 1};
  double slow_ = 0;
};

// A geometric random walk with no cycle, pulled gently back towards 10 cores so that it stays in
// the HPA's range.
class RandomWalk {
 public:
  explicit RandomWalk(std::uint64_t seed) : random_(seed) {}
  double next() {
    logLevel_ += 0.006 * normal_(random_) - 0.0005 * (logLevel_ - std::log(10.0));
    return std::exp(logLevel_);
  }

 private:
  std::mt19937_64 random_;
  std::normal_distribution<double> normal_{0, 1};
  double logLevel_ = std::log(10.0);
};

// The load of a seasonal trace at `minute`, before noise.
double seasonalLoad(const std::string& name, int minute, int weeks) {
  double load = seasonal(minute);
  const int week = minute / kMinutesPerWeek;
  if (name == "trend") load *= 1 + 0.08 * minute / kMinutesPerWeek;  // 8 % more a week
  // The holiday: the third week's Wednesday is as quiet as a Sunday.
  if (name == "holiday" && week == 3 && (minute / kMinutesPerDay) % 7 == 2) load *= weeklyFactor(6);
  if (name == "level-shift" && minute >= weeks * kMinutesPerWeek / 2) load *= 2;
  // The spike: three times the load for 45 minutes on a Thursday afternoon, once.
  const int spikeStart = 3 * kMinutesPerWeek + 3 * kMinutesPerDay + 15 * 60;
  if (name == "spike" && minute >= spikeStart && minute < spikeStart + 45) load *= 3;
  return load;
}

}  // namespace

const std::vector<TraceSpec>& traceSpecs() {
  static const std::vector<TraceSpec> specs{
      {"seasonal", "daily and weekly cycles with noise", 1, true},
      {"trend", "the same, growing 8 % a week", 2, true},
      {"holiday", "the same, one weekday (week 4's Wednesday) as quiet as a Sunday", 3, true},
      {"level-shift", "the same, the load doubling halfway (a release)", 4, true},
      {"spike", "the same, three times the load for 45 minutes once (week 4's Thursday)", 5, true},
      {"random-walk", "a random walk with no cycle", 6, false},
  };
  return specs;
}

const TraceSpec* findTraceSpec(const std::string& name) {
  for (const auto& spec : traceSpecs()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

Duration levelShiftAt(const TraceLayout& layout) {
  return minutes(static_cast<long>(layout.weeks) * kMinutesPerWeek / 2);
}

replay::Trace generateTrace(const TraceSpec& spec, const TraceLayout& layout) {
  replay::Series series{"cpu", replay::SeriesKind::Total, {}, spec.name};
  const int total = layout.weeks * kMinutesPerWeek;
  series.samples.reserve(static_cast<size_t>(total) + 1);
  Noise noise(spec.seed);
  RandomWalk walk(spec.seed);
  for (int m = 0; m <= total; ++m) {
    const double cores =
        spec.seasonal ? seasonalLoad(spec.name, m, layout.weeks) * noise.next() : walk.next();
    series.samples.push_back({minutes(m), std::llround(cores * 1000)});
  }
  replay::Trace trace;
  trace.series.push_back(std::move(series));
  trace.origin = layout.origin;
  return trace;
}

}  // namespace hpa::bench
