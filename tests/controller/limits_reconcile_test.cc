// hpa-controller.io/requests-source: Limits through the reconcile: utilization against the
// containers' limits, a container without one failing the metric as upstream fails one without
// a request, and AverageValue targets left as they are.

#include "controller/reconcile_fixture.h"
#include "controls/hpa_controls.h"
#include "report/last_decision_report.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using namespace hpa::controls;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class LimitsTest : public ReconcileTest {
 protected:
  // Two ready pods asking 100m of cpu, limited to 120m (web-1 to `web1Limit`, none when
  // nullopt), each using 80m.
  void setLimitedPods(std::optional<std::int64_t> web1Limit = 120) {
    pods_.clear();
    metricsclient::PodMetricsResult samples;
    samples.timestamp = clock_.now() - seconds(20);
    for (const char* name : {"web-0", "web-1"}) {
      PodBuilder pod(name);
      pod.label("app", "web")
          .startTime(kPodStart)
          .ready("True", kPodStart + seconds(5))
          .container("app", 100);
      const bool first = std::string(name) == "web-0";
      if (first || web1Limit) pod.limit("app", first ? 120 : *web1Limit);
      pods_.add(pod.build());
      samples.metrics[name] = replicacalc::PodMetric{80, samples.timestamp, minutes(1)};
    }
    metrics_.resource.insert_or_assign("cpu", samples);
  }
};

// Against requests: 160m of 200m = 80 %, ratio 1.6 -> ceil(1.6 x 2) = 4. Against limits: 160m of
// 240m = 66 % (integer percent), ratio 1.32 -> ceil(2.64) = 3.
TEST_F(LimitsTest, UtilizationAgainstLimitsProposesADifferentSize) {
  setScale(2);
  setLimitedPods();
  auto r = reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 4);
  EXPECT_EQ(hpa_.status.currentMetrics[0].resource->current.averageUtilization, 80);

  hpa_.metadata.annotations[kRequestsSourceAnnotation] = "Limits";
  hpa_.metadata.annotations[kRecordDecisionAnnotation] = "true";
  setScale(2);
  scales_.updates.clear();
  clock_.step(minutes(6));
  setLimitedPods();
  r = reconcile();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 3);
  EXPECT_EQ(hpa_.status.currentMetrics[0].resource->current.averageUtilization, 66);
  EXPECT_EQ(hpa_.status.currentMetrics[0].resource->current.averageValue,
            api::Quantity::fromMilli(80));
  EXPECT_EQ(r.report.controls.controls.requestsSource, replicacalc::RequestsSource::Limits);
  EXPECT_EQ(r.report.metrics[0].name, "cpu resource utilization (percentage of limit)");
  ASSERT_TRUE(r.report.metrics[0].calculation);
  EXPECT_EQ(r.report.metrics[0].calculation->utilization, 66);
  const auto recorded = report::lastDecisionOf(r.report);
  ASSERT_TRUE(recorded);
  EXPECT_EQ(recorded->requestsSource, "Limits");
  EXPECT_EQ(lastDecisionJson(*recorded, clock_.now())["requestsSource"], "Limits");
  EXPECT_THAT(decisionChangingControls(r.report.controls.controls),
              Contains("hpa-controller.io/requests-source: Limits"));
}

TEST_F(LimitsTest, AContainerWithoutALimitFailsTheMetricAsAMissingRequestDoes) {
  hpa_.metadata.annotations[kRequestsSourceAnnotation] = "Limits";
  setScale(2);
  setLimitedPods(std::nullopt);
  auto r = reconcile();
  EXPECT_TRUE(scales_.updates.empty());
  ASSERT_TRUE(r.report.metrics[0].error);
  EXPECT_EQ(r.report.metrics[0].conditionReason, "FailedGetResourceMetric");
  ASSERT_TRUE(condition("ScalingActive"));
  EXPECT_EQ(condition("ScalingActive")->reason, "FailedGetResourceMetric");
  EXPECT_THAT(condition("ScalingActive")->message,
              HasSubstr("failed to get cpu utilization: missing limit for cpu in container app "
                        "of Pod web-1"));
  EXPECT_THAT(eventReasons(),
              ElementsAre("FailedGetResourceMetric", "FailedComputeMetricsReplicas"));

  // Without the control the same pods decide (upstream needs requests only).
  hpa_.metadata.annotations.erase(kRequestsSourceAnnotation);
  clock_.step(seconds(15));
  setLimitedPods(std::nullopt);
  reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 4);
}

TEST_F(LimitsTest, AverageValueTargetsAreNotMeasuredAgainstAnything) {
  // 80m per pod against 50m per pod: ratio 1.6 -> ceil(3.2) = 4, whatever the source; web-1's
  // missing limit does not matter.
  api::MetricSpec m;
  m.source = api::ResourceMetricSource{
      "cpu", api::MetricTarget{api::kAverageValueTarget, {}, api::Quantity::fromMilli(50), {}}};
  hpa_.spec.metrics = {m};
  hpa_.metadata.annotations[kRequestsSourceAnnotation] = "Limits";
  setScale(2);
  setLimitedPods(std::nullopt);
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 4);
  EXPECT_EQ(r.report.metrics[0].name, "cpu resource");
}

}  // namespace
}  // namespace hpa::controller
