// The per-HPA controls through the reconcile: pause, how invalid values are reported, the
// requests source and owner-based pod selection.

#include "controller/reconcile_fixture.h"
#include "controls/hpa_controls.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using namespace hpa::controls;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// --- pause, through the reconcile

class PauseTest : public ReconcileTest {
 protected:
  void pause(bool on) {
    if (on) {
      hpa_.metadata.annotations[kPausedAnnotation] = "true";
    } else {
      hpa_.metadata.annotations.erase(kPausedAnnotation);
    }
  }
};

TEST_F(PauseTest, APausedHpaComputesButDoesNotScale) {
  pause(true);
  setScale(3);
  setPods(3, 150);
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_FALSE(r.report.rescale);
  EXPECT_EQ(r.report.controls.pausedScaleTo, 6);
  // The status shows current metrics and what it would choose.
  EXPECT_EQ(hpa_.status.currentReplicas, 3);
  EXPECT_EQ(hpa_.status.desiredReplicas, 6);
  EXPECT_FALSE(hpa_.status.lastScaleTime);
  ASSERT_EQ(hpa_.status.currentMetrics.size(), 1u);
  EXPECT_EQ(hpa_.status.currentMetrics[0].resource->current.averageUtilization, 150);
  ASSERT_TRUE(condition("ScalingActive"));
  EXPECT_EQ(condition("ScalingActive")->status, "False");
  EXPECT_EQ(condition("ScalingActive")->reason, "ScalingPaused");
  EXPECT_THAT(condition("ScalingActive")->message, HasSubstr("hpa-controller.io/paused"));
  EXPECT_THAT(eventReasons(), ElementsAre("ScalingPaused"));

  // Still paused: no second event, still no scale update, the history keeps growing.
  clock_.step(seconds(15));
  r = reconcile();
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_THAT(eventReasons(), ElementsAre("ScalingPaused"));
  // The first-sight seed and one recommendation per reconcile.
  EXPECT_EQ(controller().history().get("default/web")->recommendations.size(), 3u);
}

TEST_F(PauseTest, ResumingScalesAtOnceAndSaysSo) {
  pause(true);
  setScale(3);
  setPods(3, 150);
  reconcile();
  pause(false);
  clock_.step(seconds(15));
  auto r = reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 6);
  EXPECT_TRUE(r.report.controls.pauseEnded);
  EXPECT_THAT(eventReasons(), ElementsAre("ScalingPaused", "SuccessfulRescale", "ScalingResumed"));
  EXPECT_EQ(condition("ScalingActive")->reason, "ValidMetricFound");
}

TEST_F(PauseTest, RecommendationsRecordedWhilePausedCountAfterResuming) {
  // Low load while paused: the first sight seeds the window with the current 8, later
  // recommendations are 2.
  pause(true);
  setScale(8);
  setPods(8, 10);
  auto r = reconcile();
  EXPECT_EQ(hpa_.status.desiredReplicas, 8);  // held by the stabilization window
  clock_.step(minutes(3));
  reconcile();
  clock_.step(minutes(3));
  r = reconcile();  // the seed has left the 5-minute window
  EXPECT_EQ(r.report.controls.pausedScaleTo, 2);
  EXPECT_EQ(hpa_.status.desiredReplicas, 2);
  EXPECT_TRUE(scales_.updates.empty());
  // Resuming acts on the window as recorded during the pause, as if never paused.
  pause(false);
  clock_.step(seconds(15));
  reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 2);
}

TEST_F(PauseTest, ARestartDoesNotAnnounceThePauseAgain) {
  pause(true);
  setScale(3);
  setPods(3, 150);
  reconcile();
  // A new controller (restart, failover) reads the stored ScalingPaused condition.
  controller_.reset();
  events_.events.clear();
  clock_.step(seconds(15));
  reconcile();
  EXPECT_THAT(eventReasons(), IsEmpty());
  EXPECT_EQ(condition("ScalingActive")->reason, "ScalingPaused");
}

TEST_F(PauseTest, PausedAboveMaxLeavesTheScaleAndResumeClearsTheCondition) {
  pause(true);
  setScale(12);
  auto r = reconcile();
  EXPECT_EQ(r.report.branch, report::ReconcileBranch::AboveMaxReplicas);
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(hpa_.status.desiredReplicas, 10);
  EXPECT_EQ(condition("ScalingActive")->reason, "ScalingPaused");
  pause(false);
  r = reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 10);
  // The above-max branch leaves ScalingActive alone; the pause must not linger in it.
  EXPECT_EQ(condition("ScalingActive")->status, "True");
  EXPECT_EQ(condition("ScalingActive")->reason, "ScalingResumed");
}

// --- invalid values

TEST_F(ReconcileTest, InvalidControlsAreReportedOncePerChange) {
  hpa_.metadata.annotations[kSyncPeriodAnnotation] = "0s";
  setScale(3);
  setPods(3, 52);
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok());
  EXPECT_THAT(eventReasons(), ElementsAre("InvalidSyncPeriod"));
  EXPECT_EQ(events_.events[0].type, "Warning");
  EXPECT_EQ(condition("ScalingActive")->reason, "ValidMetricFound");
  EXPECT_EQ(condition("ScalingActive")->message,
            "the HPA was able to successfully calculate a replica count from cpu resource "
            "utilization (percentage "
            "of request); invalid controls: hpa-controller.io/sync-period \"0s\" is invalid: must "
            "be between 1s and "
            "1h0m0s; the global sync period applies");
  EXPECT_FALSE(r.report.controls.controls.syncPeriod);

  // Same value: no new event, and the status is not rewritten.
  clock_.step(seconds(15));
  r = reconcile();
  EXPECT_EQ(events_.events.size(), 1u);
  EXPECT_FALSE(r.report.statusChanged);

  // A restart remembers nothing but reads the condition.
  controller_.reset();
  clock_.step(seconds(15));
  reconcile();
  EXPECT_EQ(events_.events.size(), 1u);

  // A different invalid value is a change.
  hpa_.metadata.annotations[kSyncPeriodAnnotation] = "2h";
  clock_.step(seconds(15));
  reconcile();
  EXPECT_EQ(events_.events.size(), 2u);
  EXPECT_THAT(events_.events.back().message, HasSubstr("\"2h\""));

  // Fixed: the message is upstream's again.
  hpa_.metadata.annotations[kSyncPeriodAnnotation] = "2s";
  clock_.step(seconds(15));
  r = reconcile();
  EXPECT_EQ(events_.events.size(), 2u);
  EXPECT_EQ(condition("ScalingActive")->message,
            "the HPA was able to successfully calculate a replica count from cpu resource "
            "utilization (percentage "
            "of request)");
  EXPECT_EQ(r.report.controls.controls.syncPeriod, seconds(2));
}

TEST_F(ReconcileTest, AnInvalidPauseValueDoesNotPause) {
  hpa_.metadata.annotations[kPausedAnnotation] = "yes please";
  setScale(3);
  setPods(3, 150);
  reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_THAT(eventReasons(), ElementsAre("SuccessfulRescale", "InvalidControl"));
  EXPECT_THAT(condition("ScalingActive")->message,
              HasSubstr("invalid controls: hpa-controller.io/paused"));
}

// --- requests source

TEST_F(ReconcileTest, RequestsSourceActuatedCountsWhatTheKubeletRuns) {
  // Two pods resized from 100m to 200m in spec, still running at 100m and using 100m each.
  setScale(2);
  pods_.clear();
  metricsclient::PodMetricsResult samples;
  samples.timestamp = clock_.now() - seconds(20);
  for (const char* name : {"web-0", "web-1"}) {
    pods_.add(PodBuilder(name)
                  .label("app", "web")
                  .startTime(kPodStart)
                  .ready("True", kPodStart + seconds(5))
                  .container("app", 200)
                  .actuated("app", 100)
                  .build());
    samples.metrics[name] = replicacalc::PodMetric{100, samples.timestamp, minutes(1)};
  }
  metrics_.resource.insert_or_assign("cpu", samples);

  auto r = reconcile();  // Spec (upstream): 50 % of the new request, on target
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(hpa_.status.currentMetrics[0].resource->current.averageUtilization, 50);
  ASSERT_EQ(r.report.controls.resizingPods.size(), 2u);
  EXPECT_EQ(r.report.controls.resizingPods[0],
            (ControlsReport::ResizingPod{"web-0", "cpu", 200, 100}));

  hpa_.metadata.annotations[kRequestsSourceAnnotation] = "Actuated";
  clock_.step(seconds(15));
  r = reconcile();  // 100 % of what runs: doubles
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 4);
  EXPECT_EQ(hpa_.status.currentMetrics[0].resource->current.averageUtilization, 100);
}

// Two Deployments share the label app=web: web's pods (through ReplicaSet web-5d8f) are busy, the
// batch Deployment's idle. Upstream counts every pod the selector picks; OwnerReferences counts
// web's own.
TEST_F(ReconcileTest, OwnerReferencesCountsOnlyThePodsOfTheTarget) {
  setScale(2);
  pods_.clear();
  owners_.own("default", "ReplicaSet", "web-5d8f", "Deployment", "web");
  owners_.own("default", "ReplicaSet", "batch-77c1", "Deployment", "batch");
  metricsclient::PodMetricsResult samples;
  samples.timestamp = clock_.now() - seconds(20);
  auto add = [&](const char* name, const char* replicaSet, std::int64_t usage) {
    pods_.add(PodBuilder(name)
                  .label("app", "web")
                  .startTime(kPodStart)
                  .ready("True", kPodStart + seconds(5))
                  .container("app", 100)
                  .ownedBy("ReplicaSet", replicaSet)
                  .build());
    samples.metrics[name] = replicacalc::PodMetric{usage, samples.timestamp, minutes(1)};
  };
  add("web-5d8f-a", "web-5d8f", 100);
  add("web-5d8f-b", "web-5d8f", 100);
  add("batch-77c1-a", "batch-77c1", 0);
  add("batch-77c1-b", "batch-77c1", 0);
  metrics_.resource.insert_or_assign("cpu", samples);

  auto r = reconcile();  // upstream: 4 pods at 50 % on average, on target
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(hpa_.status.currentMetrics[0].resource->current.averageUtilization, 50);
  EXPECT_THAT(r.report.controls.podsNotOwned, IsEmpty());

  hpa_.metadata.annotations[kPodSelectionAnnotation] = "OwnerReferences";
  clock_.step(seconds(15));
  r = reconcile();  // web's two pods at 100 %: doubles
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 4);
  EXPECT_EQ(hpa_.status.currentMetrics[0].resource->current.averageUtilization, 100);
  EXPECT_THAT(r.report.controls.podsNotOwned, ElementsAre("batch-77c1-a", "batch-77c1-b"));
}

TEST_F(ReconcileTest, OwnerReferencesWaitsForTheOwnerCacheInsteadOfGuessing) {
  setScale(2);
  pods_.clear();
  pods_.add(PodBuilder("web-5d8f-a")
                .label("app", "web")
                .startTime(kPodStart)
                .ready("True", kPodStart + seconds(5))
                .container("app", 100)
                .ownedBy("ReplicaSet", "web-5d8f")
                .build());
  hpa_.metadata.annotations[kPodSelectionAnnotation] = "OwnerReferences";
  owners_.syncing = true;
  auto r = reconcile();
  EXPECT_TRUE(scales_.updates.empty());
  // As upstream's failed pod list: the metrics cannot be computed this sync, nothing is written
  // to the scale.
  ASSERT_THAT(eventReasons(), ElementsAre("FailedComputeMetricsReplicas"));
  EXPECT_THAT(events_.events[0].message, HasSubstr("the ReplicaSet cache has not synced yet"));
  EXPECT_FALSE(r.status.ok());
}

}  // namespace
}  // namespace hpa::controller
