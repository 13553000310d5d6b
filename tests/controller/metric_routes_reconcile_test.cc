// hpa-controller.io/metric-sources through the reconcile: a routed metric is read from its
// route's client, not the default one; a failing route fails that metric as a failing APIService
// does, and the other metrics still decide.

#include <map>

#include "controller/reconcile_fixture.h"
#include "controls/hpa_controls.h"
#include "controls/last_decision.h"
#include "report/last_decision_report.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using ::testing::HasSubstr;

// One fake adapter per route, by the route's description.
class FakeRoutes final : public metricsclient::MetricRoutes {
 public:
  std::shared_ptr<metricsclient::MetricsClient> clientFor(const api::MetricRoute& route) override {
    asked.push_back(api::describeRoute(route));
    auto it = adapters.find(asked.back());
    if (it == adapters.end()) {
      return std::make_shared<metricsclient::FailingMetricsClient>(Error::of("no such route"));
    }
    return it->second;
  }
  std::map<std::string, std::shared_ptr<hpa::testing::FakeMetricsClient>> adapters;
  std::vector<std::string> asked;
};

metricsclient::ExternalMetricResult value(std::int64_t milli, Time at) {
  return metricsclient::ExternalMetricResult{{milli}, at};
}

class MetricRoutesTest : public ReconcileTest {
 protected:
  MetricRoutesTest() {
    routes_ = &fakeRoutes_;
    a_ = std::make_shared<hpa::testing::FakeMetricsClient>();
    b_ = std::make_shared<hpa::testing::FakeMetricsClient>();
    fakeRoutes_.adapters["service metrics/sim-a:443"] = a_;
    fakeRoutes_.adapters["service metrics/sim-b:443"] = b_;
    hpa_.spec.metrics = {externalValue("depth_a", "10"), externalValue("depth_b", "10")};
    hpa_.metadata.annotations[controls::kMetricSourcesAnnotation] = R"(
- {type: External, name: depth_a, source: {service: {namespace: metrics, name: sim-a}, insecureSkipTLSVerify: true}}
- {type: External, name: depth_b, source: {service: {namespace: metrics, name: sim-b}, insecureSkipTLSVerify: true}}
)";
    setScale(4);  // upstream's scale-up limit is then 8
    setPods(4, 50);
  }
  bool defaultAskedForExternal() const {
    for (const auto& call : metrics_.calls) {
      if (call.rfind("external", 0) == 0) return true;
    }
    return false;
  }

  FakeRoutes fakeRoutes_;
  std::shared_ptr<hpa::testing::FakeMetricsClient> a_;
  std::shared_ptr<hpa::testing::FakeMetricsClient> b_;
};

TEST_F(MetricRoutesTest, EachMetricIsReadFromItsRouteAndTheLargestProposalDecides) {
  a_->external.insert_or_assign("depth_a", value(20000, clock_.now()));  // 2 x 4 = 8
  b_->external.insert_or_assign("depth_b", value(15000, clock_.now()));  // 1.5 x 4 = 6
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_FALSE(defaultAskedForExternal());
  EXPECT_EQ(a_->calls, std::vector<std::string>{"external depth_a default "});
  EXPECT_EQ(b_->calls, std::vector<std::string>{"external depth_b default "});
  ASSERT_EQ(r.report.metrics.size(), 2u);
  EXPECT_EQ(r.report.metrics[0].source, "service metrics/sim-a:443");
  EXPECT_EQ(r.report.metrics[1].source, "service metrics/sim-b:443");
  EXPECT_EQ(r.report.metrics[0].proposal, 8);
  EXPECT_EQ(r.report.metrics[1].proposal, 6);
  ASSERT_EQ(scales_.updates.size(), 1u);
  EXPECT_EQ(scales_.updates[0].specReplicas, 8);
  ASSERT_EQ(hpa_.status.currentMetrics.size(), 2u);
  EXPECT_EQ(hpa_.status.currentMetrics[0].external->current.value->milliValue(), 20000);
  EXPECT_EQ(hpa_.status.currentMetrics[1].external->current.value->milliValue(), 15000);
  // The recorded decision names each metric's source.
  const auto recorded = report::lastDecisionOf(r.report);
  ASSERT_TRUE(recorded);
  ASSERT_EQ(recorded->metrics.size(), 2u);
  EXPECT_EQ(recorded->metrics[0].source, "service metrics/sim-a:443");
  EXPECT_EQ(controls::lastDecisionJson(*recorded, clock_.now())["metrics"][1]["source"],
            "service metrics/sim-b:443");
}

TEST_F(MetricRoutesTest, AFailingRouteFailsItsMetricAsAFailingApiServiceAndTheOtherDecides) {
  a_->external.insert_or_assign(
      "depth_a",
      Error::of("unable to fetch metrics from external metrics API at service metrics/sim-a:443: "
                "Unauthorized"));
  b_->external.insert_or_assign("depth_b", value(15000, clock_.now()));  // 1.5 x 4 = 6
  auto r = reconcile();
  EXPECT_FALSE(r.status.ok());  // upstream returns the invalid metrics' error
  ASSERT_TRUE(r.report.metrics[0].error);
  EXPECT_THAT(*r.report.metrics[0].error,
              HasSubstr("unable to get external metric default/depth_a/nil: unable to fetch "
                        "metrics from external metrics API at service metrics/sim-a:443: "
                        "Unauthorized"));
  EXPECT_EQ(r.report.metrics[0].conditionReason, api::kFailedGetExternalMetric);
  EXPECT_THAT(eventReasons(), ::testing::Contains(api::kFailedGetExternalMetric));
  ASSERT_EQ(scales_.updates.size(), 1u);  // a scale-up: the working metric decides
  EXPECT_EQ(scales_.updates[0].specReplicas, 6);
  EXPECT_FALSE(defaultAskedForExternal());
}

TEST_F(MetricRoutesTest, WithoutTheAnnotationTheDefaultClientIsAsked) {
  hpa_.metadata.annotations.clear();
  metrics_.external.insert_or_assign("depth_a", value(30000, clock_.now()));
  metrics_.external.insert_or_assign("depth_b", value(10000, clock_.now()));
  auto r = reconcile();
  EXPECT_TRUE(r.status.ok());
  EXPECT_TRUE(defaultAskedForExternal());
  EXPECT_TRUE(fakeRoutes_.asked.empty());
  EXPECT_EQ(r.report.metrics[0].source, "");
}

TEST_F(MetricRoutesTest, AnInvalidAnnotationRoutesNothing) {
  hpa_.metadata.annotations[controls::kMetricSourcesAnnotation] =
      "[{type: External, name: depth_c, source: {apiGroup: c.io}}]";
  metrics_.external.insert_or_assign("depth_a", value(30000, clock_.now()));
  metrics_.external.insert_or_assign("depth_b", value(10000, clock_.now()));
  auto r = reconcile();
  EXPECT_TRUE(fakeRoutes_.asked.empty());
  EXPECT_TRUE(defaultAskedForExternal());
  EXPECT_THAT(r.report.controls.controls.errorText(), HasSubstr("no External metric \"depth_c\""));
}

TEST_F(MetricRoutesTest, WithoutRouteClientsARoutedMetricFails) {
  routes_ = nullptr;
  b_->external.insert_or_assign("depth_b", value(40000, clock_.now()));
  auto r = reconcile();
  ASSERT_TRUE(r.report.metrics[0].error);
  EXPECT_THAT(*r.report.metrics[0].error,
              HasSubstr("no client for metrics from service metrics/sim-a:443 here"));
}

}  // namespace
}  // namespace hpa::controller
