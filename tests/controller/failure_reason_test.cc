// Why a reconcile failed, as the report and the decision outcome (hpa_controller_reconcile_failing)
// name it: upstream's Event reason for the failure it returned, or TargetNotFound.

#include "controller/reconcile_fixture.h"
#include "report/decision_outcome.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;

std::string failingReason(const ReconcileResult& r, Time at) {
  return report::outcomeOf(r.report, at).failingReason;
}

TEST_F(ReconcileTest, ASucceedingReconcileHasNoFailingReason) {
  setScale(3);
  setPods(3, 50);
  auto r = reconcile();
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.report.failureReason, "");
  EXPECT_EQ(failingReason(r, clock_.now()), "");
}

TEST_F(ReconcileTest, AMissingTargetFailsAsTargetNotFound) {
  auto r = reconcile();  // no Scale for the target: NotFound
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.report.failureReason, "FailedGetScale");
  EXPECT_TRUE(r.report.targetNotFound);
  EXPECT_EQ(failingReason(r, clock_.now()), "TargetNotFound");
}

TEST_F(ReconcileTest, AScaleReadThatFailsOtherwiseIsFailedGetScale) {
  scales_.getError = Error{"etcdserver: request timed out", 500, "InternalError"};
  auto r = reconcile();
  ASSERT_FALSE(r.status.ok());
  EXPECT_FALSE(r.report.targetNotFound);
  EXPECT_EQ(failingReason(r, clock_.now()), "FailedGetScale");
}

TEST_F(ReconcileTest, FailedMetricsFailWithTheFirstMetricsReason) {
  setScale(3);
  setPods(3, 100);
  metrics_.resource.erase("cpu");
  auto r = reconcile();
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(failingReason(r, clock_.now()), "FailedGetResourceMetric")
      << "not the FailedComputeMetricsReplicas after it";

  // A failed metric beside one that scales up: the scale proceeds, the failure is still reported.
  hpa_.spec.metrics.push_back(externalValue("queue", "10"));  // no such external metric
  setPods(3, 200);
  r = reconcile();
  ASSERT_FALSE(r.status.ok());
  ASSERT_TRUE(r.report.rescaled);
  EXPECT_EQ(failingReason(r, clock_.now()), "FailedGetExternalMetric");
}

TEST_F(ReconcileTest, SelectorFailuresFailWithTheirEventsReason) {
  setScale(2, "");
  setPods(2, 50);
  EXPECT_EQ(failingReason(reconcile(), clock_.now()), "SelectorRequired");
  setScale(2, "app in (web");
  EXPECT_EQ(failingReason(reconcile(), clock_.now()), "InvalidSelector");
  setScale(2);
  controller().hpaAdded("default/other");
  controller().selectors().update("default/other", *api::Selector::parse("app=web"));
  EXPECT_EQ(failingReason(reconcile(), clock_.now()), "AmbiguousSelector");
}

TEST_F(ReconcileTest, NoMetricsFailAsFailedComputeMetricsReplicas) {
  setScale(2);
  setPods(2, 50);
  hpa_.spec.metrics.clear();
  EXPECT_EQ(failingReason(reconcile(), clock_.now()), "FailedComputeMetricsReplicas");
}

TEST_F(ReconcileTest, WriteFailuresFailWithTheirReason) {
  setScale(3);
  setPods(3, 150);
  scales_.updateErrors = {Error{"forbidden", 403, "Forbidden"}};
  EXPECT_EQ(failingReason(reconcile(), clock_.now()), "FailedRescale");

  setPods(3, 50);
  status_.error = Error{"conflict", 409, "Conflict"};
  clock_.step(std::chrono::seconds(15));
  EXPECT_EQ(failingReason(reconcile(), clock_.now()), "FailedUpdateStatus");
}

}  // namespace
}  // namespace hpa::controller
