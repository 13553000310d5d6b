// hpa-controller.io/paused in one direction (ScaleUp, ScaleDown) through the reconcile: a move in
// the held direction is held and said so, the other direction acts, the window keeps recording.

#include <algorithm>

#include "controller/reconcile_fixture.h"
#include "controls/hpa_controls.h"
#include "report/last_decision_report.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using namespace hpa::controls;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class DirectionalPauseTest : public ReconcileTest {
 protected:
  void pause(const char* value) { hpa_.metadata.annotations[kPausedAnnotation] = value; }
};

TEST_F(DirectionalPauseTest, ScaleDownHoldsAScaleDownAndRecordsTheWindow) {
  pause("ScaleDown");
  setScale(8);
  setPods(8, 10);  // 10 % of a 50 % target: 2 replicas, once the first-sight seed of 8 is gone
  auto r = reconcile();
  EXPECT_FALSE(r.report.controls.pausedScaleTo) << "the window keeps 8: nothing to hold yet";
  clock_.step(minutes(3));
  reconcile();
  clock_.step(minutes(3));
  r = reconcile();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(r.report.controls.pausedScaleTo, 2);
  EXPECT_EQ(hpa_.status.desiredReplicas, 2) << "the status shows what it would choose";
  ASSERT_TRUE(condition("AbleToScale"));
  EXPECT_EQ(condition("AbleToScale")->status, "True");
  EXPECT_EQ(condition("AbleToScale")->reason, "ScaleDownPaused");
  EXPECT_EQ(condition("AbleToScale")->message,
            "scale-down is paused by the hpa-controller.io/paused annotation (ScaleDown): the HPA "
            "would scale from 8 to 2 replicas; scale-up stays live");
  EXPECT_EQ(condition("ScalingActive")->reason, "ValidMetricFound") << "scaling is active";
  EXPECT_THAT(eventReasons(), ElementsAre("ScaleDownPaused"));
  EXPECT_THAT(events_.events[0].message, HasSubstr("would scale from 8 to 2 replicas"));
  // The window keeps recording, as while fully paused: this reconcile's 2 is in it.
  const auto history = controller().history().get("default/web");
  ASSERT_TRUE(history);
  EXPECT_TRUE(std::any_of(history->recommendations.begin(), history->recommendations.end(),
                          [&](const api::TimestampedRecommendation& rec) {
                            return rec.replicas == 2 && rec.timestamp == clock_.now();
                          }));
  const auto recorded = report::lastDecisionOf(r.report);
  ASSERT_TRUE(recorded);
  EXPECT_EQ(recorded->pausedScaleTo, 2);
  EXPECT_EQ(recorded->paused, "ScaleDown");

  // Still held: no second Event.
  clock_.step(seconds(15));
  reconcile();
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_THAT(eventReasons(), ElementsAre("ScaleDownPaused"));

  // Scale-up stays live.
  setPods(8, 100);  // 200 %: 32 replicas wanted, 10 at most
  clock_.step(seconds(15));
  r = reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 10);
  EXPECT_FALSE(r.report.controls.pausedScaleTo);
  EXPECT_EQ(condition("AbleToScale")->reason, "SucceededRescale");
}

TEST_F(DirectionalPauseTest, ScaleUpHoldsAScaleUpAndLetsAScaleDownThrough) {
  pause("ScaleUp");
  setScale(3);
  setPods(3, 150);
  auto r = reconcile();
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(r.report.controls.pausedScaleTo, 6);
  EXPECT_EQ(hpa_.status.desiredReplicas, 6);
  EXPECT_EQ(condition("AbleToScale")->reason, "ScaleUpPaused");
  EXPECT_THAT(condition("AbleToScale")->message, HasSubstr("scale-down stays live"));
  EXPECT_EQ(condition("ScalingActive")->reason, "ValidMetricFound");
  EXPECT_THAT(eventReasons(), ElementsAre("ScaleUpPaused"));
  EXPECT_EQ(report::lastDecisionOf(r.report)->paused, "ScaleUp");

  // Low load once the held recommendations have left the window: the scale-down acts.
  setPods(3, 10);
  clock_.step(minutes(6));
  r = reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 1);
  EXPECT_FALSE(r.report.controls.pausedScaleTo);
  EXPECT_EQ(condition("AbleToScale")->reason, "SucceededRescale");
}

TEST_F(DirectionalPauseTest, ScaleDownHoldsTheCorrectionAboveMaxReplicas) {
  pause("ScaleDown");
  setScale(12);
  auto r = reconcile();
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::AboveMaxReplicas);
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(r.report.controls.pausedScaleTo, 10);
  EXPECT_EQ(condition("AbleToScale")->reason, "ScaleDownPaused");
  // Below the minimum is a scale-up: not held.
  pause("ScaleDown");
  hpa_.spec.minReplicas = 4;
  setScale(2);
  clock_.step(seconds(15));
  reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 4);
}

TEST_F(DirectionalPauseTest, FromAFullPauseToOneDirectionResumesTheOther) {
  pause("true");
  setScale(3);
  setPods(3, 150);
  reconcile();
  EXPECT_EQ(condition("ScalingActive")->reason, "ScalingPaused");
  pause("ScaleDown");
  clock_.step(seconds(15));
  auto r = reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u) << "a scale-up is live again";
  EXPECT_EQ(scales_.updates[0].specReplicas, 6);
  EXPECT_TRUE(r.report.controls.pauseEnded);
  EXPECT_THAT(eventReasons(), ElementsAre("ScalingPaused", "SuccessfulRescale", "ScalingResumed"));
  EXPECT_EQ(events_.events.back().message,
            "Scaling resumed in one direction (hpa-controller.io/paused: ScaleDown): scale-down "
            "stays paused");
  EXPECT_EQ(condition("ScalingActive")->reason, "ValidMetricFound");
}

TEST_F(DirectionalPauseTest, AMisspeltDirectionDecidesAsUpstream) {
  pause("scaledown");
  setScale(3);
  setPods(3, 150);
  auto r = reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 6);
  EXPECT_FALSE(r.report.controls.pausedScaleTo);
  EXPECT_THAT(eventReasons(), ElementsAre("SuccessfulRescale", "InvalidControl"));
  EXPECT_THAT(condition("ScalingActive")->message,
              HasSubstr("invalid controls: hpa-controller.io/paused \"scaledown\" is invalid: must "
                        "be true, false, ScaleUp (no scale-up) or ScaleDown (no scale-down); "
                        "scaling is not paused"));
}

}  // namespace
}  // namespace hpa::controller
