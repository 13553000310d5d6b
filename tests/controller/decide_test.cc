#include "controller/reconcile_fixture.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using namespace hpa::controls;

TEST_F(ReconcileTest, DecideDecidesFromTheGivenObjectAndKeepsNoHistory) {
  controller().hpaAdded("default/web");  // the informer's add, as for a reconcile
  setScale(3);
  setPods(3, 150);
  // The lister's copy is not what decide reads: it decides for the object it is given.
  api::HorizontalPodAutoscaler given = hpa_;
  given.spec.maxReplicas = 4;
  auto d = controller().decide(given, DecideOptions{});
  ASSERT_TRUE(d.status.ok()) << d.status.error().message;
  EXPECT_EQ(d.report.desiredReplicas, 4);
  EXPECT_EQ(d.report.status.desiredReplicas, 4);
  EXPECT_FALSE(controller().history().get("default/web")) << "a decision keeps no history";

  // A reconcile that follows starts as if the HPA were seen for the first time (from 3 replicas:
  // the fake scale client took the decision's update; shadow mode's is a dry-run one).
  setScale(3);
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(hpa_.status.desiredReplicas, 6);
  ASSERT_TRUE(controller().history().get("default/web"));
}

TEST_F(ReconcileTest, DecideReadsTheHistoryAReconcileLeft) {
  setScale(3);
  setPods(3, 150);
  ASSERT_TRUE(reconcile().status.ok());  // recommends 9 (limited to 6) at t0
  const auto before = controller().history().get("default/web");
  ASSERT_TRUE(before);

  // A minute on, the load drops: the decision stands on the stabilization window's history.
  clock_.step(minutes(1));
  setScale(6);
  setPods(6, 20);
  auto d = controller().decide(hpa_, DecideOptions{});
  ASSERT_TRUE(d.status.ok());
  ASSERT_TRUE(d.report.normalization);
  EXPECT_EQ(d.report.normalization->ableToScale.reason, "ScaleDownStabilized");
  const auto after = controller().history().get("default/web");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->recommendations.size(), before->recommendations.size()) << "read, not changed";

  // The reconcile from the same inputs decides the same, and records.
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.report.desiredReplicas, d.report.desiredReplicas);
  EXPECT_GT(controller().history().get("default/web")->recommendations.size(),
            before->recommendations.size());
}

TEST_F(ReconcileTest, DecideTakesTheReplicaCountItIsGiven) {
  // Another controller read 3 replicas and scaled to 6 before we decide: we decide from its 3.
  controller().hpaAdded("default/web");
  setScale(6);
  setPods(3, 150);
  DecideOptions options;
  options.currentReplicas = 3;
  auto d = controller().decide(hpa_, options);
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.report.currentReplicas, 3);
  EXPECT_EQ(d.report.status.currentReplicas, 3);
  EXPECT_EQ(d.report.desiredReplicas, 6);  // 9 proposed, limited to 2 x 3
  ASSERT_EQ(scales_.updates.size(), 1u)
      << "the write goes to the dependencies given (dry-run ones in shadow mode)";
  EXPECT_EQ(scales_.updates[0].specReplicas, 6);
}

}  // namespace
}  // namespace hpa::controller

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;

TEST_F(ReconcileTest, MetricsMayBeAsOldAsHalfTheHpasOwnPeriod) {
  options_.syncPeriod = std::chrono::seconds(60);
  setScale(3);
  setPods(3, 50);
  ASSERT_TRUE(reconcile().status.ok());
  ASSERT_FALSE(metrics_.maxAges.empty());
  EXPECT_EQ(metrics_.maxAges.back(), std::chrono::seconds(30)) << "half the global period";

  hpa_.metadata.annotations[kSyncPeriodAnnotation] = "2s";
  ASSERT_TRUE(reconcile().status.ok());
  EXPECT_EQ(metrics_.maxAges.back(), std::chrono::seconds(1))
      << "half the HPA's own period, not the global one";

  DecideOptions fresh;
  fresh.freshMetrics = true;
  ASSERT_TRUE(controller().decide(hpa_, fresh).status.ok());
  EXPECT_EQ(metrics_.maxAges.back(), Duration::zero());
}

}  // namespace
}  // namespace hpa::controller

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;

TEST_F(ReconcileTest, ADryRunRecordsTheRescalesItIsToldOfNotItsOwn) {
  options_.mode = ControllerMode::Shadow;
  api::HPAScalingRules up;
  up.policies = std::vector<api::HPAScalingPolicy>{{"Pods", 2, 60}};
  hpa_.spec.behavior = api::HorizontalPodAutoscalerBehavior{up, std::nullopt};
  setScale(3);
  setPods(3, 150);
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_TRUE(r.report.rescaled) << "the dry-run writer took the update";
  ASSERT_TRUE(controller().history().get("default/web"));
  EXPECT_TRUE(controller().history().get("default/web")->scaleUpEvents.empty())
      << "a dry run scales nothing";

  // The other controller scaled 3 -> 5: the next decision is limited by that rescale.
  controller().recordObservedRescale(hpa_, 3, 5, clock_.now());
  ASSERT_EQ(controller().history().get("default/web")->scaleUpEvents.size(), 1u);
  clock_.step(std::chrono::seconds(15));
  setScale(5);
  setPods(5, 150);
  auto d = controller().decide(hpa_, DecideOptions{});
  ASSERT_TRUE(d.status.ok());
  EXPECT_EQ(d.report.desiredReplicas, 5) << "2 pods per 60 s, both spent on the observed rescale";
}

}  // namespace
}  // namespace hpa::controller

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;

TEST_F(ReconcileTest, DecideLeavesOutPodsCreatedAfterTheGivenTime) {
  controller().hpaAdded("default/web");
  setScale(3);
  setPods(3, 60);  // 120 % of the target: 4 replicas wanted
  // A pod the other controller's rescale created after it listed its pods: no metrics yet.
  api::Pod created = PodBuilder("web-new").label("app", "web").container("app", 100).build();
  created.phase = "Pending";
  created.creationTimestamp = clock_.now();
  pods_.add(created);

  auto counted = controller().decide(hpa_, DecideOptions{});
  ASSERT_TRUE(counted.status.ok());
  EXPECT_EQ(counted.report.desiredReplicas, 3)
      << "the pending pod, assumed idle, cancels the scale-up";

  DecideOptions options;
  options.podsCreatedBefore = clock_.now();
  auto left = controller().decide(hpa_, options);
  ASSERT_TRUE(left.status.ok());
  EXPECT_EQ(left.report.desiredReplicas, 4) << "the three pods the other controller counted";
}

}  // namespace
}  // namespace hpa::controller
