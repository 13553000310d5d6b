#include "controller/reconcile_fixture.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using ::testing::ElementsAre;
using ::testing::Field;

TEST_F(ReconcileTest, ScalesUpOnCpuAndWritesStatus) {
  setScale(3);
  setPods(3, 150);
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 6);  // 9 proposed, limited to 2 x 3
  EXPECT_THAT(eventReasons(), ElementsAre("SuccessfulRescale"));
  EXPECT_EQ(events_.events[0].message,
            "New size: 6; reason: cpu resource utilization (percentage of request) above target");
  EXPECT_EQ(hpa_.status.currentReplicas, 3);
  EXPECT_EQ(hpa_.status.desiredReplicas, 6);
  EXPECT_EQ(hpa_.status.lastScaleTime, clock_.now());
  ASSERT_EQ(hpa_.status.currentMetrics.size(), 1u);
  EXPECT_EQ(hpa_.status.currentMetrics[0].resource->current.averageUtilization, 150);
  EXPECT_EQ(hpa_.status.currentMetrics[0].resource->current.averageValue->toString(), "150m");
  EXPECT_EQ(condition("AbleToScale")->reason, "SucceededRescale");
  EXPECT_EQ(condition("ScalingActive")->reason, "ValidMetricFound");
  EXPECT_EQ(condition("ScalingLimited")->reason, "ScaleUpLimit");
  EXPECT_EQ(condition("ScalingLimited")->status, "True");
  EXPECT_EQ(hpa_.status.observedGeneration, 1);
}

TEST_F(ReconcileTest, WithinToleranceWritesStatusOnlyWhenItChanges) {
  setScale(3);
  setPods(3, 52);
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok());
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(status_.writes.size(), 1u);
  EXPECT_EQ(hpa_.status.desiredReplicas, 3);
  EXPECT_EQ(condition("AbleToScale")->reason, "ReadyForNewScale");
  EXPECT_EQ(condition("ScalingLimited")->reason, "DesiredWithinRange");
  // Nothing changed: the second reconcile writes nothing.
  clock_.step(seconds(15));
  r = reconcile();
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(status_.writes.size(), 1u);
  EXPECT_FALSE(r.report.statusChanged);
}

TEST_F(ReconcileTest, AboveMaxAndBelowMinBranchesSkipMetrics) {
  setScale(12);
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::AboveMaxReplicas);
  EXPECT_EQ(scales_.updates.back().specReplicas, 10);
  EXPECT_EQ(events_.events.back().message,
            "New size: 10; reason: Current number of replicas above Spec.MaxReplicas");
  EXPECT_TRUE(metrics_.calls.empty());
  EXPECT_TRUE(hpa_.status.currentMetrics.empty());

  hpa_.spec.minReplicas = 4;
  setScale(2);
  r = reconcile();
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::BelowMinReplicas);
  EXPECT_EQ(scales_.updates.back().specReplicas, 4);
  EXPECT_EQ(events_.events.back().message,
            "New size: 4; reason: Current number of replicas below Spec.MinReplicas");
}

TEST_F(ReconcileTest, TargetAtZeroByHandDisablesScaling) {
  setScale(0);
  setPods(1, 500);
  auto r = reconcile();
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::ScalingDisabled);
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(condition("ScalingActive")->status, "False");
  EXPECT_EQ(condition("ScalingActive")->reason, "ScalingDisabled");
  EXPECT_EQ(condition("ScalingActive")->message,
            "scaling is disabled since the replica count of the target is zero");
}

TEST_F(ReconcileTest, FailedGetScale) {
  auto r = reconcile();  // no Scale for the target
  EXPECT_FALSE(r.status.ok());
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::FailedGetScale);
  EXPECT_THAT(eventReasons(), ElementsAre("FailedGetScale"));
  EXPECT_EQ(condition("AbleToScale")->status, "False");
  EXPECT_EQ(condition("AbleToScale")->message,
            "the HPA controller was unable to get the target's current scale: deployments.apps "
            "\"web\" not found");
  EXPECT_EQ(r.status.error().message,
            "failed to query scale subresource for Deployment/default/web: deployments.apps "
            "\"web\" not found");
}

TEST_F(ReconcileTest, MetricsFailureSetsConditionsAndEvents) {
  setScale(3);
  setPods(3, 100);
  metrics_.resource.erase("cpu");
  auto r = reconcile();
  EXPECT_FALSE(r.status.ok());
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::MetricsFailed);
  EXPECT_THAT(eventReasons(),
              ElementsAre("FailedGetResourceMetric", "FailedComputeMetricsReplicas"));
  EXPECT_EQ(events_.events[0].message,
            "failed to get cpu utilization: unable to get metrics for resource cpu: no metrics "
            "returned from "
            "resource metrics API");
  EXPECT_EQ(condition("ScalingActive")->reason, "FailedGetResourceMetric");
  EXPECT_EQ(condition("ScalingActive")->message,
            "the HPA was unable to compute the replica count: failed to get cpu utilization: "
            "unable to get metrics "
            "for resource cpu: no metrics returned from resource metrics API");
  EXPECT_EQ(events_.events[1].message,
            "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource "
            "metric value: failed "
            "to get cpu utilization: unable to get metrics for resource cpu: no metrics returned "
            "from resource "
            "metrics API");
  EXPECT_TRUE(scales_.updates.empty());
}

TEST_F(ReconcileTest, AFailedMetricBlocksScaleDownButNotScaleUp) {
  hpa_.spec.metrics.push_back(externalValue("queue", "10"));
  setScale(4);
  setPods(4, 10);  // cpu alone says scale down
  auto r = reconcile();
  EXPECT_FALSE(r.status.ok());
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::MetricsFailed);

  setPods(4, 200);  // cpu says scale up: proceeds despite the failed external metric
  events_.events.clear();
  r = reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 8);
  EXPECT_FALSE(r.status.ok());  // the partial failure is still reported
  EXPECT_THAT(eventReasons(), ElementsAre("FailedGetExternalMetric", "SuccessfulRescale"));
}

TEST_F(ReconcileTest, AmbiguousSelector) {
  setScale(2);
  setPods(2, 50);
  controller().hpaAdded("default/other");
  controller().selectors().update("default/other", *api::Selector::parse("app=web"));
  auto r = reconcile();
  EXPECT_FALSE(r.status.ok());
  EXPECT_EQ(condition("ScalingActive")->reason, "AmbiguousSelector");
  EXPECT_THAT(eventReasons(), ::testing::Contains("AmbiguousSelector"));
  EXPECT_TRUE(scales_.updates.empty());
}

TEST_F(ReconcileTest, MissingSelector) {
  setScale(2, "");
  setPods(2, 50);
  auto r = reconcile();
  EXPECT_FALSE(r.status.ok());
  EXPECT_EQ(condition("ScalingActive")->reason, "InvalidSelector");
  EXPECT_EQ(condition("ScalingActive")->message, "the HPA target's scale is missing a selector");
  EXPECT_THAT(eventReasons(), ::testing::Contains("SelectorRequired"));
}

TEST_F(ReconcileTest, ScaleDownWaitsForStabilization) {
  setScale(4);
  setPods(4, 10);
  auto r = reconcile();  // first sight: recommendations seeded with the current 4
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(condition("AbleToScale")->reason, "ScaleDownStabilized");
  clock_.step(minutes(5) + seconds(1));
  r = reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 1);
  EXPECT_EQ(events_.events.back().message, "New size: 1; reason: All metrics below target");
}

TEST_F(ReconcileTest, BehaviorPoliciesAndScaleEventHistory) {
  hpa_.spec.behavior.emplace();
  hpa_.spec.behavior->scaleUp =
      api::HPAScalingRules{0, "Max", std::vector<api::HPAScalingPolicy>{{"Pods", 1, 60}}, {}};
  setScale(2);
  setPods(2, 500);
  reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 3);
  auto history = controller().history().get("default/web");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->scaleUpEvents.size(), 1u);
  EXPECT_EQ(history->scaleUpEvents[0].replicaChange, 1);
  // Within the policy's 60 s period the budget is spent.
  setScale(3);
  setPods(3, 500);
  clock_.step(seconds(15));
  reconcile();
  EXPECT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(condition("ScalingLimited")->reason, "ScaleUpLimit");
}

TEST_F(ReconcileTest, DeletedHpaDropsHistory) {
  setScale(3);
  setPods(3, 50);
  reconcile();
  EXPECT_TRUE(controller().history().get("default/web"));
  hpas_.remove("default/web");
  auto r = controller().reconcileKey("default/web");
  EXPECT_TRUE(r.deleted);
  EXPECT_FALSE(controller().history().get("default/web"));
}

TEST_F(ReconcileTest, ScaleUpdateFailure) {
  setScale(3);
  setPods(3, 150);
  scales_.updateErrors = {Error{"forbidden", 403, "Forbidden"}};
  auto r = reconcile();
  EXPECT_FALSE(r.status.ok());
  EXPECT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(events_.events.back().reason, "FailedRescale");
  EXPECT_EQ(events_.events.back().message,
            "New size: 6; reason: cpu resource utilization (percentage of request) above target; "
            "error: forbidden");
  EXPECT_EQ(condition("AbleToScale")->reason, "FailedUpdateScale");
  EXPECT_EQ(r.status.error().message, "failed to rescale Deployment/default/web: forbidden");
}

TEST_F(ReconcileTest, ScaleToZeroAndBackWithExternalMetric) {
  hpa_.spec.minReplicas = 0;
  hpa_.spec.metrics = {externalValue("queue", "10")};
  setScale(2);
  setPods(2, 0);
  metrics_.external.insert_or_assign("queue",
                                     metricsclient::ExternalMetricResult{{0}, clock_.now()});
  clock_.step(minutes(6));  // nothing to stabilize against after the first sight...
  reconcile();
  clock_.step(minutes(6));  // ... and past the window
  reconcile();
  ASSERT_FALSE(scales_.updates.empty());
  EXPECT_EQ(scales_.updates.back().specReplicas, 0);
  ASSERT_TRUE(condition("ScaledToZero"));
  EXPECT_EQ(condition("ScaledToZero")->status, "True");

  // The HPA put it at zero, so it may scale it back from zero when the metric asks.
  setScale(0);
  pods_.clear();
  metrics_.external.insert_or_assign("queue",
                                     metricsclient::ExternalMetricResult{{25000}, clock_.now()});
  clock_.step(seconds(15));
  auto r = reconcile();
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::Metrics);
  EXPECT_EQ(scales_.updates.back().specReplicas, 3);  // ceil(25 / 10)
  EXPECT_EQ(condition("ScaledToZero")->status, "False");
}

TEST_F(ReconcileTest, StopsWritingObservedGenerationTheServerDrops) {
  setScale(3);
  setPods(3, 50);
  status_.dropObservedGeneration = true;
  reconcile();
  EXPECT_EQ(status_.writes.size(), 1u);
  EXPECT_TRUE(status_.writes[0].status.observedGeneration);
  clock_.step(seconds(15));
  auto r = reconcile();
  EXPECT_EQ(status_.writes.size(), 1u);  // would otherwise rewrite every sync
  EXPECT_FALSE(r.report.status.observedGeneration);
}

}  // namespace
}  // namespace hpa::controller
