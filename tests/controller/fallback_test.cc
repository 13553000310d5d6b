// hpa-controller.io/fallback: parsing, thresholds and proposals, the failure runs, and the
// reconcile with failing metrics (the maximum with working metrics, conditions and events).

#include "controller/fallback.h"
#include "controller/metric_failure_store.h"
#include "controller/reconcile_fixture.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(FallbackSpec, ParsesCountsDurationsAndBehaviors) {
  auto f = parseFallback("after=3,replicas=6");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->afterFailures, 3);
  EXPECT_FALSE(f->afterDuration);
  EXPECT_EQ(f->behavior, FallbackBehavior::Static);
  EXPECT_EQ(f->replicas, 6);

  f = parseFallback(" after = 2m , behavior = current-if-higher , replicas = 4 ");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_FALSE(f->afterFailures);
  EXPECT_EQ(f->afterDuration, minutes(2));
  EXPECT_EQ(f->behavior, FallbackBehavior::CurrentIfHigher);
  EXPECT_EQ(f->replicas, 4);

  f = parseFallback("after=90s,behavior=current");  // current needs no replicas
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->behavior, FallbackBehavior::Current);
  f = parseFallback("after=1,behavior=current-if-lower,replicas=0");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->behavior, FallbackBehavior::CurrentIfLower);
}

TEST(FallbackSpec, RejectsWhatCannotBeMeant) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "after is required"},
      {"replicas=3", "after is required"},
      {"after=3", "replicas is required with behavior static"},
      {"after=3,behavior=current-if-higher", "replicas is required with behavior current-if-higher"},
      {"after=0,replicas=3", "between 1 and 1000"},
      {"after=-2,replicas=3", "between 1 and 1000"},
      {"after=1001,replicas=3", "between 1 and 1000"},
      {"after=0s,replicas=3", "must be positive"},
      {"after=soon,replicas=3", "neither a count of failures nor a duration"},
      {"after=3,replicas=-1", "must be a count of replicas"},
      {"after=3,replicas=3.5", "must be a count of replicas"},
      {"after=3,replicas=99999999999", "must be a count of replicas"},
      {"after=3,behavior=Static,replicas=3", "behavior \"Static\" must be static, current"},
      {"after=3,replica=3", "unknown key \"replica\""},
      {"after 3", "is not key=value"},
  };
  for (const auto& [text, want] : cases) {
    auto f = parseFallback(text);
    ASSERT_FALSE(f.ok()) << text;
    EXPECT_THAT(f.error().message, HasSubstr(want)) << text;
  }
}

TEST(FallbackSpec, FormatsAsTheAnnotationSpellsIt) {
  for (const char* text : {"after=3,replicas=6", "after=2m0s,behavior=current-if-higher,replicas=4",
                           "after=1,behavior=current", "after=1m30s,behavior=current-if-lower,replicas=0"}) {
    auto f = parseFallback(text);
    ASSERT_TRUE(f.ok()) << text;
    EXPECT_EQ(formatFallback(*f), text);
  }
}

TEST(FallbackRule, ThresholdsCountFailuresOrTime) {
  const Time t0 = kPodStart;
  FallbackSpec byCount{3, std::nullopt, FallbackBehavior::Static, 5};
  EXPECT_FALSE(fallbackDue(byCount, {t0, 0}, t0));
  EXPECT_FALSE(fallbackDue(byCount, {t0, 2}, t0 + minutes(10)));  // time does not count
  EXPECT_TRUE(fallbackDue(byCount, {t0, 3}, t0));
  EXPECT_TRUE(fallbackDue(byCount, {t0, 4}, t0));

  FallbackSpec byTime{std::nullopt, minutes(2), FallbackBehavior::Static, 5};
  EXPECT_FALSE(fallbackDue(byTime, {t0, 50}, t0 + minutes(2) - seconds(1)));  // failures do not count
  EXPECT_TRUE(fallbackDue(byTime, {t0, 2}, t0 + minutes(2)));               // the edge is inclusive
  EXPECT_FALSE(fallbackDue(byTime, {t0, 0}, t0 + minutes(5)));              // no failure, no fallback
}

TEST(FallbackRule, BehaviorsAgainstTheCurrentSize) {
  auto spec = [](FallbackBehavior b) { return FallbackSpec{1, std::nullopt, b, 5}; };
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::Static), 2), 5);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::Static), 9), 5);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::Current), 2), 2);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::Current), 9), 9);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::CurrentIfHigher), 2), 5);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::CurrentIfHigher), 9), 9);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::CurrentIfLower), 2), 2);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::CurrentIfLower), 9), 5);
}

TEST(MetricFailureStore, RunsGrowUntilTheMetricWorks) {
  MetricFailureStore store;
  const Time t0 = kPodStart;
  EXPECT_EQ(store.failed("ns/a", 1, 2, t0), (FailureRun{t0, 1}));
  EXPECT_EQ(store.failed("ns/a", 1, 2, t0 + seconds(15)), (FailureRun{t0, 2}));
  EXPECT_EQ(store.failed("ns/a", 0, 2, t0 + seconds(15)), (FailureRun{t0 + seconds(15), 1}));  // its own run
  EXPECT_EQ(store.failed("ns/b", 1, 2, t0 + seconds(20)), (FailureRun{t0 + seconds(20), 1}));  // another HPA
  store.succeeded("ns/a", 1);
  EXPECT_EQ(store.failed("ns/a", 1, 2, t0 + seconds(30)), (FailureRun{t0 + seconds(30), 1}));
  EXPECT_EQ(store.failed("ns/a", 0, 2, t0 + seconds(30)), (FailureRun{t0 + seconds(15), 2}));
  // The metrics changed: every run starts again.
  EXPECT_EQ(store.failed("ns/a", 0, 3, t0 + seconds(45)), (FailureRun{t0 + seconds(45), 1}));
  store.erase("ns/a");
  EXPECT_EQ(store.failed("ns/a", 0, 3, t0 + seconds(60)), (FailureRun{t0 + seconds(60), 1}));
}

// --- through the reconcile

class FallbackTest : public ReconcileTest {
 protected:
  void fallback(const std::string& text) { hpa_.metadata.annotations[kFallbackAnnotation] = text; }
  void cpuFails() { metrics_.resource.erase("cpu"); }
  std::int32_t scaledTo() const { return scales_.scales.at("deployments/default/web").specReplicas; }
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
    EXPECT_EQ(r.report.branch, ReconcileBranch::MetricsFailed);
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
    EXPECT_EQ(r.report.branch, ReconcileBranch::MetricsFailed) << i;
  }
  EXPECT_TRUE(scales_.updates.empty());

  auto r = next();  // the third failure in a row
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_EQ(r.report.branch, ReconcileBranch::Metrics);
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
  EXPECT_EQ(r.report.branch, ReconcileBranch::MetricsFailed);
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
  EXPECT_EQ(r.report.branch, ReconcileBranch::MetricsFailed);
  clock_.step(seconds(44));
  r = next();  // 59 s of failing
  EXPECT_EQ(r.report.branch, ReconcileBranch::MetricsFailed);
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
  EXPECT_THAT(condition("ScalingActive")->message, HasSubstr("hpa-controller.io/fallback \"after=3\" is invalid"));
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
    EXPECT_EQ(r.report.branch, ReconcileBranch::MetricsFailed) << i;
  }
}

}  // namespace
}  // namespace hpa::controller
