// hpa-controller.io/within-tolerance-keep through the reconcile: during a rollout the scale's
// status counts the surge pods, and within the tolerance a per-pod (AverageValue) Object or
// External target keeps status.replicas as upstream does (kubernetes#138505), or spec.replicas
// with the control (kubernetes#141134).

#include "controller/reconcile_fixture.h"
#include "controls/hpa_controls.h"
#include "report/last_decision_report.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using namespace hpa::controls;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

api::MetricSpec externalAverage(const std::string& name, const char* averageValue) {
  api::MetricSpec m;
  m.source = api::ExternalMetricSource{
      {name, std::nullopt},
      api::MetricTarget{api::kAverageValueTarget, {}, *api::Quantity::parse(averageValue), {}}};
  return m;
}

api::MetricSpec objectAverage(const std::string& name, const char* averageValue) {
  api::MetricSpec m;
  api::ObjectMetricSource source;
  source.describedObject = {"Service", "web", "v1"};
  source.metric = {name, std::nullopt};
  source.target =
      api::MetricTarget{api::kAverageValueTarget, {}, *api::Quantity::parse(averageValue), {}};
  m.source = source;
  return m;
}

class WithinToleranceKeepTest : public ReconcileTest {
 protected:
  WithinToleranceKeepTest() {
    hpa_.spec.maxReplicas = 30;
    setPods(20, 50);
  }
  // Deployment web in a rollout with maxSurge 1: spec 20, status 21.
  void setSurgingScale() {
    setScale(20);
    scales_.scales["deployments/default/web"].statusReplicas = 21;
  }
  void setRequests(std::int64_t milli) {
    metrics_.objects.insert_or_assign(
        "requests", metricsclient::ObjectMetricResult{milli, clock_.now() - seconds(10)});
  }
  void setQueue(std::int64_t milli) {
    metrics_.external.insert_or_assign(
        "queue", metricsclient::ExternalMetricResult{{milli}, clock_.now() - seconds(10)});
  }
};

// 2000 over 21 pods is 95.2 of the 100 per pod: within the tolerance.
TEST_F(WithinToleranceKeepTest, UpstreamWritesTheSurgePodIntoSpec) {
  hpa_.spec.metrics = {externalAverage("queue", "100")};
  setSurgingScale();
  setQueue(2'000'000);
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 21);
  EXPECT_EQ(r.report.controls.controls.withinToleranceKeep,
            replicacalc::WithinToleranceKeep::Status);
}

TEST_F(WithinToleranceKeepTest, SpecKeepsSpecReplicasThroughTheSurge) {
  hpa_.spec.metrics = {externalAverage("queue", "100")};
  hpa_.metadata.annotations[kWithinToleranceKeepAnnotation] = "Spec";
  setSurgingScale();
  setQueue(2'000'000);
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_TRUE(scales_.updates.empty());
  ASSERT_TRUE(r.report.metrics[0].calculation);
  EXPECT_TRUE(r.report.metrics[0].calculation->withinTolerance);
  EXPECT_EQ(r.report.metrics[0].calculation->replicas, 20);
  EXPECT_EQ(hpa_.status.desiredReplicas, 20);
  EXPECT_EQ(report::lastDecisionOf(r.report)->withinToleranceKeep, "Spec");
}

// Outside the tolerance the control changes nothing: ceil(2600 / 100) = 26 either way, the
// ratio still taken over status's 21 pods (2600 / 2100 = 1.24).
TEST_F(WithinToleranceKeepTest, OutsideTheToleranceItChangesNothing) {
  hpa_.spec.metrics = {externalAverage("queue", "100")};
  hpa_.metadata.annotations[kWithinToleranceKeepAnnotation] = "Spec";
  setSurgingScale();
  setQueue(2'600'000);
  reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 26);
}

// Each case on a fresh HPA: a recommendation of 21 in the stabilization window would hold a
// later 20 up for five minutes.
TEST_F(WithinToleranceKeepTest, ObjectAverageValueDriftsUpstream) {
  hpa_.spec.metrics = {objectAverage("requests", "100")};
  setRequests(2'000'000);
  setSurgingScale();
  reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 21);
}

TEST_F(WithinToleranceKeepTest, ObjectAverageValueKeepsSpecWithTheControl) {
  hpa_.spec.metrics = {objectAverage("requests", "100")};
  hpa_.metadata.annotations[kWithinToleranceKeepAnnotation] = "Spec";
  setRequests(2'000'000);
  setSurgingScale();
  auto r = reconcile();
  EXPECT_TRUE(scales_.updates.empty());
  EXPECT_EQ(r.report.metrics[0].calculation->replicas, 20);
}

// A Value target already keeps spec upstream: the control does not touch it.
TEST_F(WithinToleranceKeepTest, ValueTargetsAreUpstreamsWithOrWithoutIt) {
  hpa_.spec.metrics = {externalValue("queue", "2000")};
  hpa_.metadata.annotations[kWithinToleranceKeepAnnotation] = "Spec";
  setSurgingScale();
  setQueue(2'000'000);
  reconcile();
  EXPECT_TRUE(scales_.updates.empty());
}

TEST_F(WithinToleranceKeepTest, AnInvalidValueDecidesAsUpstream) {
  hpa_.spec.metrics = {externalAverage("queue", "100")};
  hpa_.metadata.annotations[kWithinToleranceKeepAnnotation] = "spec";
  setSurgingScale();
  setQueue(2'000'000);
  reconcile();
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 21);
  EXPECT_THAT(eventReasons(), ElementsAre("SuccessfulRescale", "InvalidControl"));
  EXPECT_THAT(condition("ScalingActive")->message,
              HasSubstr("hpa-controller.io/within-tolerance-keep \"spec\" is invalid: must be "
                        "Status or Spec; Status applies"));
}

}  // namespace
}  // namespace hpa::controller
