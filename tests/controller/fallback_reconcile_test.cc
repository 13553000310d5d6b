// hpa-controller.io/fallback through the reconcile: failing metrics beside working ones (the
// maximum, conditions and events).

#include "controller/reconcile_fixture.h"
#include "controls/fallback.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using namespace hpa::controls;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// --- through the reconcile

class FallbackTest : public ReconcileTest {
 protected:
  void fallback(const std::string& text) { hpa_.metadata.annotations[kFallbackAnnotation] = text; }
  void cpuFails() { metrics_.resource.erase("cpu"); }
  std::int32_t scaledTo() const {
    return scales_.scales.at("deployments/default/web").specReplicas;
  }
  ReconcileResult next() {
    clock_.step(seconds(15));
    return reconcile();
  }
};

TEST_F(FallbackTest, WithoutTheAnnotationFailedMetricsKeepTheSize) {
  setScale(3);
  setPods(3, 50);
  cpuFails();
  for (int i = 0; i < 5; ++i) {
    auto r = next();
    EXPECT_FALSE(r.status.ok());
    EXPECT_EQ(r.report.branch, report::ReconcileBranch::MetricsFailed);
  }
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(condition("ScalingActive")->reason, "FailedGetResourceMetric");
}

TEST_F(FallbackTest, ReachesTheFallbackAfterTheThresholdAndLeavesItWhenMetricsReturn) {
  fallback("after=3,replicas=6");
  setScale(3);
  setPods(3, 50);
  cpuFails();
  for (int i = 1; i <= 2; ++i) {  // below the threshold: upstream's behavior
    auto r = next();
    EXPECT_FALSE(r.status.ok()) << i;
    EXPECT_EQ(r.report.branch, report::ReconcileBranch::MetricsFailed) << i;
  }
  EXPECT_TRUE(scales_.updates.empty());

  auto r = next();  // the third failure in a row
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::Metrics);
  ASSERT_TRUE(r.report.metrics[0].fallback);
  EXPECT_EQ(r.report.metrics[0].fallback->run.failures, 3);
  EXPECT_EQ(r.report.metrics[0].fallback->replicas, 6);
  EXPECT_TRUE(r.report.metrics[0].error);  // still reported as failed
  EXPECT_TRUE(r.report.controls.fallbackStarted);
  EXPECT_EQ(scaledTo(), 6);
  EXPECT_EQ(condition("ScalingActive")->status, "True");
  EXPECT_EQ(condition("ScalingActive")->reason, "MetricFallback");
  EXPECT_THAT(condition("ScalingActive")->message, HasSubstr("hpa-controller.io/fallback"));
  EXPECT_THAT(r.report.reason, HasSubstr("(fallback) above target"));
  ASSERT_GE(r.report.events.size(), 2u);  // before the rescale's own event
  const auto& started = r.report.events[r.report.events.size() - 2];
  EXPECT_EQ(r.report.events.back().reason, "SuccessfulRescale");
  EXPECT_EQ(started.type, "Warning");
  EXPECT_EQ(started.reason, "MetricFallback");
  EXPECT_THAT(started.message, HasSubstr("The cpu resource failed 3 times in a row"));
  EXPECT_THAT(started.message, HasSubstr("proposes 6 replicas"));

  // Still failing: the status shows the new size once, then stays as it is (no write every
  // sync), and there is no second MetricFallback event.
  r = next();
  EXPECT_FALSE(r.report.controls.fallbackStarted);
  const auto writes = status_.writes.size();
  r = next();
  EXPECT_EQ(status_.writes.size(), writes);
  EXPECT_EQ(scaledTo(), 6);
  int fallbackEvents = 0;
  for (const auto& e : events_.events) fallbackEvents += e.reason == "MetricFallback";
  EXPECT_EQ(fallbackEvents, 1);

  // The metrics return (low load): the fallback ends, the metrics decide again.
  setPods(6, 10);
  r = next();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_TRUE(r.report.controls.fallbackEnded);
  EXPECT_FALSE(r.report.metrics[0].fallback);
  EXPECT_EQ(condition("ScalingActive")->reason, "ValidMetricFound");
  EXPECT_EQ(events_.events.back().reason, "MetricFallbackEnded");
  // A new outage starts a new run.
  cpuFails();
  r = next();
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::MetricsFailed);
}

TEST_F(FallbackTest, AFallbackNeverHidesAHigherWorkingRecommendation) {
  fallback("after=1,replicas=4");
  hpa_.spec.metrics.push_back(externalValue("queue", "4"));
  setScale(3);
  setPods(3, 150);  // cpu works: 150 % of a 50 % target, 9 replicas
  auto r = next();  // the external metric fails (no value): its fallback proposes 4
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_TRUE(r.report.metrics[1].fallback);
  EXPECT_EQ(r.report.metrics[0].proposal, 9);
  EXPECT_EQ(r.report.metricReplicas, 9);
  EXPECT_EQ(scaledTo(), 6);  // 9, as far as upstream's scale-up limit lets it go at once

  // Low cpu: the fallback is now the highest proposal and holds the size up against it.
  setScale(5);
  setPods(5, 10);
  r = next();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_EQ(r.report.metrics[0].proposal, 1);
  EXPECT_EQ(r.report.metricReplicas, 4);
  EXPECT_THAT(r.report.metricName, HasSubstr("(fallback)"));
}

TEST_F(FallbackTest, ADurationThresholdCountsTimeAndTheWindowStillSmoothsTheWayDown) {
  fallback("after=1m,behavior=current-if-lower,replicas=2");
  setScale(6);
  setPods(6, 50);
  reconcile();  // works: the window holds 6
  cpuFails();
  auto r = next();
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::MetricsFailed);
  clock_.step(seconds(44));
  r = next();  // 59 s of failing
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::MetricsFailed);
  r = next();  // 74 s: due; proposes min(6, 2) = 2, the 5-minute window keeps 6
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_TRUE(r.report.metrics[0].fallback);
  EXPECT_EQ(r.report.metrics[0].fallback->replicas, 2);
  EXPECT_EQ(r.report.desiredReplicas, 6);
  EXPECT_TRUE(scales_.updates.empty());
  clock_.step(minutes(5));
  r = next();
  EXPECT_EQ(scaledTo(), 2);
}

TEST_F(FallbackTest, AnInvalidValueIsReportedAndChangesNothing) {
  fallback("after=3");
  setScale(3);
  setPods(3, 50);
  cpuFails();
  for (int i = 0; i < 4; ++i) next();
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_THAT(condition("ScalingActive")->message,
              HasSubstr("hpa-controller.io/fallback \"after=3\" is invalid"));
  EXPECT_THAT(eventReasons(), ::testing::Contains("InvalidControl"));
}

TEST_F(FallbackTest, ADecisionThatKeepsNothingSeesOnlyItsOwnFailure) {
  setScale(3);
  setPods(3, 50);
  cpuFails();
  fallback("after=1,replicas=5");
  controller().hpaAdded("default/web");
  auto r = controller().decide(hpa_, DecideOptions{});
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_EQ(r.report.metrics[0].fallback->replicas, 5);
  fallback("after=2,replicas=5");
  for (int i = 0; i < 3; ++i) {
    r = controller().decide(hpa_, DecideOptions{});
    EXPECT_EQ(r.report.branch, report::ReconcileBranch::MetricsFailed) << i;
  }
}

}  // namespace
}  // namespace hpa::controller
