// hpa-controller.io/forecast through the reconcile: a preview changes nothing and says what it
// would do; active, the floor raises the size ahead of the load and is the limit named; when the
// floor goes (the history with it), the downscale stabilization window brings the size down as
// after any peak, and reactive scaling never stopped.

#include "controller/reconcile_fixture.h"
#include "controls/forecast_spec.h"
#include "fakes/fake_forecast_history.h"
#include "report/decision_outcome.h"
#include "report/last_decision_report.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using namespace hpa::controls;
using ::testing::HasSubstr;

class ForecastReconcileTest : public ReconcileTest {
 protected:
  ForecastReconcileTest() {
    // Two weeks of the target's cpu, peaking (0.37 cores) every day at this instant: with 100m
    // requests and a 50 % target, 8 pods' worth.
    const Time start = clock_.now() - std::chrono::hours(24 * 14 + 6);
    history_.series = hpa::testing::dailyCycle(start, clock_.now() + std::chrono::hours(24),
                                               minutes(5), 0.25, 0.12);
    forecastHistory_ = &history_;
  }
  void forecast(const std::string& text) { hpa_.metadata.annotations[kForecastAnnotation] = text; }
  std::int32_t scaledTo() const {
    return scales_.scales.at("deployments/default/web").specReplicas;
  }
  ReconcileResult after(Duration d) {
    clock_.step(d);
    return reconcile();
  }

  hpa::testing::FakeForecastHistory history_;
};

TEST_F(ForecastReconcileTest, APreviewShowsTheFloorAndChangesNothing) {
  forecast("{mode: Preview}");
  setScale(3);
  setPods(3, 50);  // at target: the metrics want 3
  auto r = reconcile();
  ASSERT_TRUE(r.report.controls.forecast);
  const auto& f = *r.report.controls.forecast;
  ASSERT_TRUE(f.floor) << f.message;
  EXPECT_EQ(*f.floor, 8);
  EXPECT_EQ(f.leadFrom, "initial readiness delay");
  EXPECT_EQ(f.lead, seconds(30) + seconds(15) + seconds(30) + std::chrono::minutes(5));
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(r.report.desiredReplicas, 3);
  ASSERT_NE(condition(api::kForecastCondition), nullptr);
  EXPECT_EQ(condition(api::kForecastCondition)->reason, api::kForecastPreview);
  EXPECT_EQ(report::outcomeOf(r.report, clock_.now()).limitedBy, report::DecisionLimit::None);
  const auto recorded = report::lastDecisionOf(r.report);
  ASSERT_TRUE(recorded && recorded->forecast);
  EXPECT_EQ(recorded->forecast->mode, "Preview");
  EXPECT_EQ(recorded->forecast->floor, 8);
  EXPECT_EQ(recorded->forecast->reason, api::kForecastPreview);
}

// The last three hours ran at 40 % of the cycle: the forecast is lowered, and the recorded
// decision says by what.
TEST_F(ForecastReconcileTest, AQuietStretchIsRecordedAsWhatLoweredTheForecast) {
  for (auto& sample : history_.series) {
    if (sample.at > clock_.now() - std::chrono::hours(3)) sample.value *= 0.4;
  }
  forecast("{mode: Preview}");
  setScale(3);
  setPods(3, 50);
  auto r = reconcile();
  ASSERT_TRUE(r.report.controls.forecast && r.report.controls.forecast->recentRatio);
  const auto recorded = report::lastDecisionOf(r.report);
  ASSERT_TRUE(recorded && recorded->forecast && recorded->forecast->recentRatio);
  EXPECT_NEAR(*recorded->forecast->recentRatio, 0.4, 0.05);
  EXPECT_THAT(condition(api::kForecastCondition)->message, HasSubstr("lowered: the last 2h0m0s"));
}

TEST_F(ForecastReconcileTest, ActiveRaisesTheSizeAndTheWindowSmoothsTheWayDownWhenItGoes) {
  forecast("{mode: Active}");
  setScale(4);  // without behavior a scale-up goes to at most 8 from 4
  setPods(4, 50);
  auto r = reconcile();
  EXPECT_EQ(scaledTo(), 8);
  EXPECT_EQ(r.report.metricReplicas, 4);
  EXPECT_EQ(condition(api::kScalingLimited)->reason, api::kForecastFloor);
  EXPECT_EQ(condition(api::kForecastCondition)->reason, api::kForecastFloor);
  EXPECT_THAT(events_.events.back().message,
              HasSubstr("New size: 8; reason: the forecast of cpu needs 8 replicas"));
  const auto outcome = report::outcomeOf(r.report, clock_.now());
  EXPECT_EQ(outcome.limitedBy, report::DecisionLimit::Forecast);
  ASSERT_TRUE(outcome.forecast);
  EXPECT_EQ(outcome.forecast->floor, 8);
  const auto recorded = report::lastDecisionOf(r.report);
  ASSERT_TRUE(recorded && recorded->limitedBy);
  EXPECT_EQ(recorded->limitedBy->first, api::kForecastFloor);

  // The history goes: no floor, and the metrics want 3 again.
  history_.error = "Prometheus is unreachable";
  setPods(8, 18);
  r = after(seconds(15));
  EXPECT_FALSE(r.report.controls.forecast->floor);
  EXPECT_EQ(condition(api::kForecastCondition)->status, api::kConditionFalse);
  EXPECT_EQ(condition(api::kForecastCondition)->reason, api::kNoForecastHistory);
  EXPECT_EQ(r.report.metricReplicas, 3);
  EXPECT_EQ(scaledTo(), 8) << "the downscale window remembers the floor";
  EXPECT_NE(condition(api::kScalingLimited)->reason, api::kForecastFloor);
  EXPECT_FALSE(report::outcomeOf(r.report, clock_.now()).forecast);
  for (int i = 0; i < 18; ++i) r = after(seconds(15));  // 4m45s after the floor's last sync
  EXPECT_EQ(scaledTo(), 8);
  r = after(seconds(30));
  EXPECT_EQ(scaledTo(), 3);
}

TEST_F(ForecastReconcileTest, ReactiveScalingAboveTheFloorWins) {
  forecast("{mode: Active}");
  setScale(5);
  setPods(5, 200);  // the metrics want 20, capped at 10
  auto r = reconcile();
  EXPECT_EQ(scaledTo(), 10);
  EXPECT_FALSE(r.report.controls.forecast->raised);
  EXPECT_EQ(condition(api::kScalingLimited)->reason, api::kTooManyReplicas);
}

}  // namespace
}  // namespace hpa::controller
