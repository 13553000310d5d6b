// hpa-controller.io/schedule through the reconcile: a window's floor and ceiling, the
// ScalingLimited condition naming the window, reactive scaling inside the bounds, and the
// stabilization window smoothing the way down after a window closes.

#include "controller/reconcile_fixture.h"
#include "controls/schedule.h"
#include "report/last_decision_report.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using namespace hpa::controls;
using ::testing::HasSubstr;

// The fixture's clock starts at 2023-11-14T22:43:20Z.
class ScheduleReconcileTest : public ReconcileTest {
 protected:
  void schedule(const std::string& text) { hpa_.metadata.annotations[kScheduleAnnotation] = text; }
  std::int32_t scaledTo() const {
    return scales_.scales.at("deployments/default/web").specReplicas;
  }
  ReconcileResult after(Duration d) {
    clock_.step(d);
    return reconcile();
  }
  // Reconciles every 15 s, as the run loop would, until `until`.
  ReconcileResult every15sUntil(const char* until) {
    const Time end = *parseRFC3339(until);
    ReconcileResult r = after(std::chrono::seconds(15));
    while (clock_.now() + std::chrono::seconds(15) <= end) r = after(std::chrono::seconds(15));
    return r;
  }
};

TEST_F(ScheduleReconcileTest, AFloorHoldsWhileOpenAndTheWindowSmoothsTheWayDown) {
  schedule("[{name: evening-peak, start: '45 22 * * *', duration: 10m, minReplicas: 6}]");
  setScale(3);
  setPods(3, 50);  // at target
  auto r = reconcile();
  ASSERT_TRUE(r.report.controls.schedule);
  EXPECT_TRUE(r.report.controls.schedule->open.empty());
  EXPECT_EQ(r.report.minReplicas, 1);
  EXPECT_TRUE(scales_.updates.empty());

  r = after(std::chrono::minutes(2));  // 22:45:20: open
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::BelowMinReplicas);
  EXPECT_EQ(scaledTo(), 6);
  EXPECT_EQ(r.report.minReplicas, 6);
  EXPECT_EQ(r.report.controls.schedule->minFrom, "evening-peak");
  EXPECT_TRUE(r.report.controls.schedule->held);
  EXPECT_EQ(condition("ScalingLimited")->reason, "ScheduledMinReplicas");
  EXPECT_THAT(condition("ScalingLimited")->message,
              HasSubstr("minimum replica count 6 of schedule window evening-peak (open until "
                        "2023-11-14T22:55:00Z)"));
  EXPECT_THAT(events_.events.back().message,
              HasSubstr("New size: 6; reason: Current number of replicas below the minReplicas of "
                        "schedule window "
                        "evening-peak"));

  // The load falls: the metrics want 3, the floor holds 6.
  setPods(6, 25);
  r = after(std::chrono::seconds(15));
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::Metrics);
  EXPECT_EQ(r.report.metricReplicas, 3);
  EXPECT_EQ(r.report.desiredReplicas, 6);
  EXPECT_EQ(condition("ScalingLimited")->reason, "ScheduledMinReplicas");
  auto recorded =
      report::lastDecisionOf(r.report);  // what hpa-controller.io/record-decision would write
  ASSERT_TRUE(recorded && recorded->limitedBy);
  EXPECT_EQ(recorded->limitedBy->first, "ScheduledMinReplicas");
  // A rise above the floor is reactive scaling as usual.
  setPods(6, 100);
  r = after(std::chrono::seconds(15));
  EXPECT_EQ(scaledTo(), 10);
  EXPECT_NE(condition("ScalingLimited")->reason, "ScheduledMinReplicas");
  setPods(10, 25);  // the metrics want 5
  r = after(std::chrono::seconds(15));
  EXPECT_EQ(scaledTo(), 10) << "the downscale window holds the peak";
  r = every15sUntil("2023-11-14T22:54:59Z");
  EXPECT_EQ(scaledTo(), 6) << "down to the floor once the peak left the downscale window";
  EXPECT_EQ(condition("ScalingLimited")->reason, "ScheduledMinReplicas");

  // 22:55: closed. The downscale window remembers the floor for 5 more minutes.
  r = every15sUntil("2023-11-14T22:55:15Z");
  ASSERT_TRUE(r.report.controls.schedule);
  EXPECT_TRUE(r.report.controls.schedule->open.empty());
  EXPECT_EQ(r.report.minReplicas, 1);
  EXPECT_EQ(r.report.metricReplicas, 5);
  EXPECT_EQ(scaledTo(), 6) << "the floor's recommendations are in the history";
  EXPECT_NE(condition("ScalingLimited")->reason, "ScheduledMinReplicas");
  r = every15sUntil("2023-11-14T22:59:50Z");
  EXPECT_EQ(scaledTo(), 6);
  r = every15sUntil("2023-11-14T23:00:20Z");
  EXPECT_EQ(scaledTo(), 5);
}

TEST_F(ScheduleReconcileTest, ACeilingLowersTheSizeAndCapsTheMetrics) {
  schedule(
      "[{name: freeze, start: '40 22 * * *', duration: 1h, timeZone: Europe/Paris, maxReplicas: "
      "4}]");
  // 22:40 in Paris (UTC+1 in November) was 21:40Z: not open at 22:43:20Z.
  setScale(6);
  setPods(6, 50);
  auto r = reconcile();
  EXPECT_TRUE(r.report.controls.schedule->open.empty());
  EXPECT_TRUE(scales_.updates.empty());
  schedule(
      "[{name: freeze, start: '40 23 * * *', duration: 1h, timeZone: Europe/Paris, maxReplicas: "
      "4}]");
  r = after(std::chrono::seconds(15));
  ASSERT_EQ(r.report.controls.schedule->open.size(), 1u);
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::AboveMaxReplicas);
  EXPECT_EQ(scaledTo(), 4);
  EXPECT_EQ(r.report.maxReplicas, 4);
  EXPECT_EQ(condition("ScalingLimited")->reason, "ScheduledMaxReplicas");
  EXPECT_THAT(events_.events.back().message,
              HasSubstr("above the maxReplicas of schedule window freeze"));
  setPods(4, 100);  // the metrics want 8
  r = after(std::chrono::seconds(15));
  EXPECT_EQ(r.report.metricReplicas, 8);
  EXPECT_EQ(r.report.desiredReplicas, 4);
  EXPECT_EQ(scaledTo(), 4);
  EXPECT_EQ(condition("ScalingLimited")->reason, "ScheduledMaxReplicas");
}

TEST_F(ScheduleReconcileTest, AnInvalidScheduleIsReportedAndTheHpasBoundsApply) {
  schedule("[{start: '45 22 * * *', duration: 10m}]");
  setScale(3);
  setPods(3, 50);
  auto r = after(std::chrono::minutes(2));
  EXPECT_FALSE(r.report.controls.schedule);
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_THAT(condition("ScalingActive")->message,
              HasSubstr("hpa-controller.io/schedule is invalid: window 1: "
                        "minReplicas or maxReplicas is required"));
  EXPECT_THAT(eventReasons(), ::testing::Contains("InvalidControl"));
}

}  // namespace
}  // namespace hpa::controller
