// hpa-controller.io/cpu-initialization-period and hpa-controller.io/initial-readiness-delay
// through the reconcile: this HPA's pods are grouped by its own start-up windows, not the flags'.

#include "controller/reconcile_fixture.h"
#include "controls/hpa_controls.h"
#include "report/last_decision_report.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using namespace hpa::controls;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class StartupWindowsTest : public ReconcileTest {
 protected:
  // Two ready pods at 60m of 100m (120 % of the 50 % target) and a third, web-2, as given,
  // sampled at the same usage.
  void setPodsWith(const PodBuilder& third) {
    setPods(2, 60);
    pods_.add(third.build());
    auto& samples = *metrics_.resource.at("cpu");
    samples.metrics["web-2"] = replicacalc::PodMetric{60, samples.timestamp, minutes(1)};
  }
  static PodBuilder web2() {
    PodBuilder pod("web-2");
    pod.label("app", "web").startTime(kPodStart).container("app", 100);
    return pod;
  }
};

// Three ready pods at 120 %: ceil(1.2 x 3) = 4. With web-2 unready, on a scale-up it counts as
// 0: 120m / 300m = 40 % of request, ratio 0.8, the direction flips: keep 3.

TEST_F(StartupWindowsTest, ALongerCpuInitializationPeriodKeepsARecentlyReadyPodOut) {
  setScale(3);
  // Started 30 minutes ago, ready 30 s ago: past the flag's 5 minutes, a ready pod.
  setPodsWith(web2().ready("True", clock_.now() - seconds(30)));
  auto r = reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 4);

  // Within this HPA's hour, its sample does not yet cover a full window since it became ready.
  hpa_.metadata.annotations[kCpuInitializationPeriodAnnotation] = "1h";
  setScale(3);
  scales_.updates.clear();
  clock_.step(minutes(6));
  setPodsWith(web2().ready("True", clock_.now() - seconds(30)));
  r = reconcile();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_TRUE(scales_.updates.empty());
  ASSERT_TRUE(r.report.metrics[0].calculation);
  EXPECT_EQ(r.report.metrics[0].calculation->unreadyPodCount, 1);
  EXPECT_EQ(r.report.controls.controls.cpuInitializationPeriod, std::chrono::hours(1));
  const auto recorded = report::lastDecisionOf(r.report);
  ASSERT_TRUE(recorded);
  EXPECT_EQ(recorded->cpuInitializationPeriod, "1h0m0s");
  EXPECT_EQ(recorded->initialReadinessDelay, "");
}

TEST_F(StartupWindowsTest, ALongerInitialReadinessDelayCountsAnEarlyFlapAsNeverReady) {
  setScale(3);
  // Not ready since 60 s after its start: past the flag's 30 s, it was ready once and counts.
  setPodsWith(web2().ready("False", kPodStart + seconds(60)));
  reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 4);

  hpa_.metadata.annotations[kInitialReadinessDelayAnnotation] = "2m";
  setScale(3);
  scales_.updates.clear();
  clock_.step(minutes(6));
  setPodsWith(web2().ready("False", kPodStart + seconds(60)));
  auto r = reconcile();
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(r.report.metrics[0].calculation->unreadyPodCount, 1);
  EXPECT_EQ(report::lastDecisionOf(r.report)->initialReadinessDelay, "2m0s");
}

TEST_F(StartupWindowsTest, AnInvalidWindowDecidesAsUpstream) {
  hpa_.metadata.annotations[kCpuInitializationPeriodAnnotation] = "2h";
  setScale(3);
  setPodsWith(web2().ready("True", clock_.now() - seconds(30)));
  auto r = reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 4);
  EXPECT_FALSE(r.report.controls.controls.cpuInitializationPeriod);
  EXPECT_THAT(eventReasons(), ElementsAre("SuccessfulRescale", "InvalidControl"));
  EXPECT_THAT(condition("ScalingActive")->message,
              HasSubstr("invalid controls: hpa-controller.io/cpu-initialization-period \"2h\" is "
                        "invalid: must be between 0s and 1h0m0s; "
                        "--horizontal-pod-autoscaler-cpu-initialization-period applies"));
}

}  // namespace
}  // namespace hpa::controller
