// What the forecaster reads of the history: the level it adjusts to, what it forgets, how much it
// needs, never a sample after now, and gaps.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <thread>
#include <vector>

#include "forecast/forecaster.h"

namespace hpa::forecast {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

const Time kOrigin = fromUnixSeconds(1'704'067'200);
constexpr double kTau = 2 * std::numbers::pi;

double hoursSince(Time t) {
  return std::chrono::duration<double, std::ratio<3600>>(t - kOrigin).count();
}

template <typename F>
std::vector<Sample> trace(Time to, F f, double noise = 3.0, unsigned seed = 1) {
  std::mt19937 random(seed);
  std::normal_distribution<double> gauss(0, 1);
  std::vector<Sample> out;
  for (Time t = kOrigin; t <= to; t += minutes(5)) {
    out.push_back({t, f(t) + noise * gauss(random)});
  }
  return out;
}

double dailySine(Time t) { return 100 + 50 * std::sin(kTau * hoursSince(t) / 24); }

TEST(ForecasterHistory, ALevelStepIsFollowedByTheTrendAdjustment) {
  Forecaster forecaster;
  const Time now = kOrigin + hours(24 * 14 + 6);
  const Time release = now - hours(36);  // the load doubles a day and a half ago
  const auto doubled = [&](Time t) { return dailySine(t) * (t > release ? 2.0 : 1.0); };
  const auto history = trace(now, doubled);
  const Duration lead = minutes(15);
  const double truth = doubled(now + lead);
  // Without the default margin, and unmoved by the recent load: what the cycles say, to compare
  // the trend adjustments with the truth.
  ForecastOptions asItIs;
  asItIs.margin = 1;
  asItIs.recent = Duration::zero();
  const ForecastResult adjusted = forecaster.forecast(history, now, lead, asItIs);
  ASSERT_TRUE(adjusted.prediction) << adjusted.message;
  EXPECT_NEAR(adjusted.prediction->value, truth, 0.05 * truth);

  ForecastOptions asTheyWere = asItIs;
  asTheyWere.trend = TrendAdjustment::kNone;
  const ForecastResult unadjusted = forecaster.forecast(history, now, lead, asTheyWere);
  ASSERT_TRUE(unadjusted.prediction) << unadjusted.message;
  // Three of the four past days had half the load: their median is the old level.
  EXPECT_NEAR(unadjusted.prediction->value, truth / 2, 0.05 * truth);

  ForecastOptions byDifference = asItIs;
  byDifference.trend = TrendAdjustment::kDifference;
  const ForecastResult shifted = forecaster.forecast(history, now, lead, byDifference);
  ASSERT_TRUE(shifted.prediction);
  // A doubling is not a shift: adding the level difference under-forecasts the peak's growth.
  EXPECT_GT(std::abs(shifted.prediction->value - truth), 0.05 * truth);
  EXPECT_GT(shifted.prediction->value, unadjusted.prediction->value);
}

TEST(ForecasterHistory, ForgetBeforeDropsTheOldRegime) {
  Forecaster forecaster;
  const Time now = kOrigin + hours(24 * 21 + 6);  // 06:00: the sine's peak
  const Time migration = now - hours(62);         // two days and a half and a bit
  // Before the migration the daily cycle ran the other way round (its peak at 18:00).
  const auto load = [&](Time t) {
    const double wave = 50 * std::sin(kTau * hoursSince(t) / 24);
    return 100 + (t > migration ? wave : -wave);
  };
  const auto history = trace(now, load);
  const Duration lead = minutes(10);
  const double truth = load(now + lead);

  // The recent check off: it would follow the new regime part of the way (by at most a fifth).
  ForecastOptions unchecked;
  unchecked.recent = Duration::zero();
  const ForecastResult remembering = forecaster.forecast(history, now, lead, unchecked);
  ASSERT_TRUE(remembering.prediction) << remembering.message;
  EXPECT_GT(std::abs(remembering.prediction->value - truth), 0.2 * truth);

  ForecastOptions options;
  options.forgetBefore = migration;
  const ForecastResult forgetting = forecaster.forecast(history, now, lead, options);
  ASSERT_TRUE(forgetting.prediction) << forgetting.message;
  EXPECT_GE(forgetting.from, migration);
  EXPECT_LT(forgetting.from, migration + minutes(5));
  EXPECT_NEAR(forgetting.prediction->value, truth, 0.05 * truth);
  EXPECT_EQ(forgetting.prediction->samePhase.size(), 2u);
  // Two cycles of the four it would use: less sure than with the whole of them.
  EXPECT_LT(forgetting.prediction->confidence, 0.6);
  EXPECT_GT(forgetting.prediction->confidence, 0.3);
}

TEST(ForecasterHistory, LessThanTwoCyclesIsTooLittleHistory) {
  Forecaster forecaster;
  const Time now = kOrigin + hours(36);
  const ForecastResult young = forecaster.forecast(trace(now, dailySine), now, minutes(15));
  EXPECT_FALSE(young.prediction);
  EXPECT_EQ(young.reason, NoForecastReason::kTooLittleHistory);
  EXPECT_EQ(young.message.rfind("too little history", 0), 0u) << young.message;
  EXPECT_TRUE(young.cycles.empty());

  const Time later = kOrigin + hours(24 * 10);
  ForecastOptions options;
  options.forgetBefore = later - hours(40);
  const auto forgotten = forecaster.forecast(trace(later, dailySine), later, minutes(15), options);
  EXPECT_EQ(forgotten.reason, NoForecastReason::kTooLittleHistory) << forgotten.message;
  EXPECT_FALSE(forecaster.forecast({}, later, minutes(15)).prediction);

  // Ten days: daily is tested, weekly is not (less than two weeks), and says so.
  const ForecastResult tenDays = forecaster.forecast(trace(later, dailySine), later, minutes(15));
  ASSERT_TRUE(tenDays.prediction) << tenDays.message;
  ASSERT_EQ(tenDays.cycles.size(), 2u);
  EXPECT_TRUE(tenDays.cycles[0].tested);
  EXPECT_FALSE(tenDays.cycles[1].tested);
  EXPECT_FALSE(tenDays.cycles[1].confirmed);
}

void expectSame(const ForecastResult& a, const ForecastResult& b) {
  ASSERT_EQ(a.prediction.has_value(), b.prediction.has_value());
  if (a.prediction) {
    // Bit for bit: the same doubles, not nearly the same.
    EXPECT_EQ(a.prediction->value, b.prediction->value);
    EXPECT_EQ(a.prediction->confidence, b.prediction->confidence);
    EXPECT_EQ(a.prediction->samePhase, b.prediction->samePhase);
  }
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.coverage, b.coverage);
  EXPECT_EQ(a.from, b.from);
  ASSERT_EQ(a.cycles.size(), b.cycles.size());
  for (std::size_t i = 0; i < a.cycles.size(); ++i) {
    EXPECT_EQ(a.cycles[i].strength, b.cycles[i].strength);
  }
  ASSERT_EQ(a.candidates.size(), b.candidates.size());
  for (std::size_t i = 0; i < a.candidates.size(); ++i) {
    EXPECT_EQ(a.candidates[i].power, b.candidates[i].power);
    EXPECT_EQ(a.candidates[i].period, b.candidates[i].period);
  }
}

TEST(ForecasterHistory, SamplesAfterNowChangeNothing) {
  Forecaster forecaster;
  const Time end = kOrigin + hours(24 * 21);
  const Time now = end - hours(24 * 2) + minutes(3);  // between two samples
  std::vector<Sample> past;
  std::vector<Sample> all = trace(end, dailySine);
  for (const Sample& s : all) {
    if (s.at <= now) past.push_back(s);
  }
  ASSERT_LT(past.size(), all.size());
  // The future is wild: were any of it read, the forecast would show it.
  for (Sample& s : all) {
    if (s.at > now) s.value = s.value * 10 + 1000;
  }
  all.push_back({now + minutes(1), -1e6});
  const Duration lead = minutes(20);
  const ForecastResult before = forecaster.forecast(past, now, lead);
  const ForecastResult after = forecaster.forecast(all, now, lead);
  ASSERT_TRUE(before.prediction) << before.message;
  expectSame(before, after);
  // And moving now forward does read them: the outlier alone breaks the cycle.
  const ForecastResult later = forecaster.forecast(all, now + hours(1), lead);
  ASSERT_EQ(later.cycles.size(), 2u);
  EXPECT_LT(later.cycles[0].strength, before.cycles[0].strength - 0.5) << later.message;
}

TEST(ForecasterHistory, GapsAreBridgedAndLowerTheConfidence) {
  Forecaster forecaster;
  const Time now = kOrigin + hours(24 * 14 + 9);
  const auto whole = trace(now, dailySine);
  std::vector<Sample> holey;
  for (const Sample& s : whole) {
    const double h = hoursSince(s.at);
    const bool nightlyOutage = std::fmod(h, 24) >= 1 && std::fmod(h, 24) < 7;  // six hours a day
    const bool lostDay = h >= 24 * 11 && h < 24 * 12;                          // and one whole day
    if (!nightlyOutage && !lostDay) holey.push_back(s);
  }
  const Duration lead = minutes(15);
  const double truth = dailySine(now + lead);
  const ForecastResult full = forecaster.forecast(whole, now, lead);
  const ForecastResult gapped = forecaster.forecast(holey, now, lead);
  ASSERT_TRUE(full.prediction && gapped.prediction) << gapped.message;
  EXPECT_NEAR(gapped.prediction->value, truth, 0.05 * truth);
  EXPECT_LT(gapped.coverage, 0.75);
  EXPECT_GT(gapped.coverage, 0.65);
  EXPECT_LT(gapped.prediction->confidence, full.prediction->confidence);
  EXPECT_GT(gapped.prediction->confidence, 0.4);
}

TEST(ForecasterHistory, ThreadsShareOneForecaster) {
  Forecaster forecaster;
  const Time now = kOrigin + hours(24 * 20);
  const auto history = trace(now, dailySine);
  // Different lengths: different FFT sizes, so plans are made while others run.
  const std::vector<Time> instants{now, now - hours(24 * 9), now - hours(24 * 4), now - hours(50)};
  std::vector<ForecastResult> alone;
  {
    Forecaster single;
    for (Time t : instants) alone.push_back(single.forecast(history, t, minutes(15)));
  }
  std::vector<ForecastResult> together(instants.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < instants.size(); ++i) {
    threads.emplace_back(
        [&, i] { together[i] = forecaster.forecast(history, instants[i], minutes(15)); });
  }
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < instants.size(); ++i) expectSame(alone[i], together[i]);
}

}  // namespace
}  // namespace hpa::forecast
