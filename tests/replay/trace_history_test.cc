#include "replay/trace_history.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>

#include "forecast/forecaster.h"

namespace hpa::replay {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

// A multiple of five minutes since the Unix epoch, as replay's own offset 0 is.
const Time kOrigin = fromUnixSeconds(1'767'225'600);

controls::HistoryRequest request(Duration step = minutes(5), Duration range = hours(1)) {
  return {"demo/web", "cpu", "", range, step};
}

Trace trace(SeriesKind kind, std::initializer_list<std::pair<Duration, std::int64_t>> steps) {
  Series s{"cpu", kind, {}, "test.csv"};
  for (auto [at, milli] : steps) s.samples.push_back({at, milli});
  Trace t;
  t.series.push_back(std::move(s));
  return t;
}

std::vector<std::pair<Duration, double>> points(const controls::History& h) {
  std::vector<std::pair<Duration, double>> out;
  for (const auto& s : *h.samples) out.emplace_back(s.at - kOrigin, s.value);
  return out;
}

using Points = std::vector<std::pair<Duration, double>>;

// At each grid instant at or before now, the value the trace held then, in cores.
TEST(TraceHistory, ServesTheGridInstantsThatHavePassed) {
  const Trace t =
      trace(SeriesKind::Total, {{minutes(0), 1000}, {minutes(7), 2500}, {minutes(12), 3000}});
  TraceHistory source(t, kOrigin);
  auto h = source.history(request(), kOrigin + minutes(11));
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(points(*h), (Points{{minutes(0), 1.0}, {minutes(5), 1.0}, {minutes(10), 2.5}}));

  // The same grid instant: the same samples, the same version.
  auto same = source.history(request(), kOrigin + minutes(14) + seconds(59));
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->samples, h->samples);
  EXPECT_EQ(same->version, h->version);

  // The next one passes: one more point, a new version.
  auto later = source.history(request(), kOrigin + minutes(15));
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(points(*later),
            (Points{{minutes(0), 1.0}, {minutes(5), 1.0}, {minutes(10), 2.5}, {minutes(15), 3.0}}));
  EXPECT_NE(later->version, h->version);
}

// Nothing before the trace's first sample; nothing older than the range.
TEST(TraceHistory, KeepsToTheTraceAndTheRange) {
  const Trace t = trace(SeriesKind::Total, {{minutes(6), 1000}, {minutes(40), 2000}});
  TraceHistory source(t, kOrigin);
  auto early = source.history(request(), kOrigin + minutes(5) + seconds(59));
  ASSERT_TRUE(early.ok());
  EXPECT_TRUE(early->samples->empty());
  auto h = source.history(request(minutes(5), minutes(20)), kOrigin + minutes(42));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(
      points(*h),
      (Points{{minutes(25), 1.0}, {minutes(30), 1.0}, {minutes(35), 1.0}, {minutes(40), 2.0}}));
}

// Without a step, the samples themselves, up to and including one at now.
TEST(TraceHistory, ServesTheSamplesWithoutAStep) {
  const Trace t =
      trace(SeriesKind::Total, {{seconds(0), 100}, {seconds(30), 200}, {seconds(60), 300}});
  TraceHistory source(t, kOrigin);
  auto h = source.history(request(Duration::zero()), kOrigin + seconds(30));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(points(*h), (Points{{seconds(0), 0.1}, {seconds(30), 0.2}}));
  auto later = source.history(request(Duration::zero()), kOrigin + seconds(59));
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->version, h->version);
}

TEST(TraceHistory, RefusesWhatIsNotATotal) {
  const Trace perPod = trace(SeriesKind::PerPod, {{seconds(0), 100}});
  TraceHistory source(perPod, kOrigin);
  auto h = source.history(request(), kOrigin + minutes(5));
  ASSERT_FALSE(h.ok());
  EXPECT_THAT(h.error().message, ::testing::HasSubstr("per pod"));
  controls::HistoryRequest memory = request();
  memory.metric = "memory";
  auto missing = source.history(memory, kOrigin + minutes(5));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, ::testing::HasSubstr("no series \"memory\""));
}

// Three weeks of a daily cycle, one sample a minute; `future` gives the samples after `cut`.
Trace dailyCycle(Duration cut, const std::function<std::int64_t(int minute)>& future) {
  Series s{"cpu", SeriesKind::Total, {}, "generated"};
  const int total = 21 * 24 * 60;
  for (int m = 0; m < total; ++m) {
    const double phase = 2 * std::numbers::pi * (m % (24 * 60)) / (24 * 60);
    auto milli = static_cast<std::int64_t>(5000 + 4000 * std::sin(phase) + 37 * (m % 11));
    if (minutes(m) > cut) milli = future(m);
    s.samples.push_back({minutes(m), milli});
  }
  Trace t;
  t.series.push_back(std::move(s));
  return t;
}

// What a forecast at `now` reads and predicts depends on the trace's past only: changing every
// sample after now (and adding more) changes neither.
TEST(TraceHistory, HasNoLookAhead) {
  const Duration now = hours(24 * 14) + hours(7) + minutes(3) + seconds(20);
  const Trace original = dailyCycle(now, [](int m) { return 5000 + 37 * (m % 11); });
  Trace changed = dailyCycle(now, [](int m) { return 90000 + 1000 * (m % 7); });
  changed.series.front().samples.push_back({hours(24 * 30), 1});
  TraceHistory a(original, kOrigin);
  TraceHistory b(changed, kOrigin);
  const forecast::ForecastOptions options;
  const controls::HistoryRequest r = request(options.step, options.maxHistory);
  auto ha = a.history(r, kOrigin + now);
  auto hb = b.history(r, kOrigin + now);
  ASSERT_TRUE(ha.ok() && hb.ok());
  ASSERT_EQ(ha->samples->size(), hb->samples->size());
  ASSERT_FALSE(ha->samples->empty());
  for (size_t i = 0; i < ha->samples->size(); ++i) {
    EXPECT_EQ((*ha->samples)[i].at, (*hb->samples)[i].at);
    EXPECT_EQ((*ha->samples)[i].value, (*hb->samples)[i].value);
  }
  EXPECT_LE(ha->samples->back().at, kOrigin + now);

  forecast::Forecaster forecaster;
  const auto fa = forecaster.forecast(*ha->samples, kOrigin + now, minutes(4), options);
  const auto fb = forecaster.forecast(*hb->samples, kOrigin + now, minutes(4), options);
  ASSERT_TRUE(fa.prediction.has_value()) << fa.message;
  ASSERT_TRUE(fb.prediction.has_value()) << fb.message;
  EXPECT_EQ(fa.prediction->value, fb.prediction->value);
  EXPECT_EQ(fa.prediction->confidence, fb.prediction->confidence);

  // The futures do differ: a later instant's history tells them apart.
  auto la = a.history(r, kOrigin + now + minutes(10));
  auto lb = b.history(r, kOrigin + now + minutes(10));
  ASSERT_TRUE(la.ok() && lb.ok());
  EXPECT_NE(la->samples->back().value, lb->samples->back().value);
}

}  // namespace
}  // namespace hpa::replay
