// hpa-controller.io/last-decision: the document a reconcile leaves, and when it counts as changed.

#include "controller/reconcile_fixture.h"
#include "report/last_decision_report.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using namespace hpa::controls;
using nlohmann::json;

class LastDecisionTest : public ReconcileTest {
 protected:
  json decide() {
    clock_.step(seconds(15));
    auto r = reconcile();
    auto doc = report::lastDecisionDocument(r.report, clock_.now());
    EXPECT_TRUE(doc);
    return doc.value_or(json());
  }
};

TEST_F(LastDecisionTest, AScaleUpSaysWhatEachMetricProposedAndWhatLimitedIt) {
  setScale(3);
  setPods(3, 150);  // 300 % of the target: 9 wanted, 6 at once
  json d = decide();
  EXPECT_EQ(d["time"], formatRFC3339(clock_.now()));
  EXPECT_EQ(d["branch"], "metrics");
  EXPECT_EQ(d["currentReplicas"], 3);
  EXPECT_EQ(d["desiredReplicas"], 6);
  EXPECT_EQ(d["recommendedReplicas"], 9);
  EXPECT_EQ(d["stabilizedReplicas"], 9);
  ASSERT_EQ(d["metrics"].size(), 1u);
  EXPECT_EQ(d["metrics"][0]["type"], "Resource");
  EXPECT_EQ(d["metrics"][0]["proposedReplicas"], 9);
  EXPECT_EQ(d["metrics"][0]["pods"],
            (json{{"ready", 3}, {"unready", 0}, {"missing", 0}, {"ignored", 0}}));
  EXPECT_EQ(d["limitedBy"]["reason"], "ScaleUpLimit");
  EXPECT_EQ(d["reason"], "cpu resource utilization (percentage of request) above target");
}

TEST_F(LastDecisionTest, AFailedMetricNamesItsReasonNotItsMessage) {
  setScale(3);
  setPods(3, 50);
  metrics_.resource.erase("cpu");
  json d = decide();
  EXPECT_EQ(d["branch"], "metrics-failed");
  EXPECT_EQ(d["metrics"][0]["failed"], "FailedGetResourceMetric");
  EXPECT_FALSE(d["metrics"][0].contains("proposedReplicas"));
  EXPECT_FALSE(d.contains("recommendedReplicas"));
}

TEST_F(LastDecisionTest, TheSteadyStateIsNoChangeAndAnyRealChangeIs) {
  setScale(3);
  setPods(3, 50);
  json first = decide();
  json again = decide();
  EXPECT_NE(first["time"], again["time"]);
  const std::string stored = first.dump();
  EXPECT_FALSE(decisionChanged(&stored, again));
  EXPECT_TRUE(sameDecision(first, again));
  json extra = again;
  extra["pausedScaleTo"] = 3;
  EXPECT_FALSE(sameDecision(first, extra));
  EXPECT_FALSE(sameDecision(extra, first));
  json timeless = extra;  // a field in place of the time is no match either
  timeless.erase("time");
  EXPECT_FALSE(sameDecision(first, timeless));
  EXPECT_FALSE(sameDecision(timeless, first));
  setPods(3, 150);
  json loaded = decide();
  EXPECT_TRUE(decisionChanged(&stored, loaded));
  // Nothing stored, or something unreadable, is always a change.
  EXPECT_TRUE(decisionChanged(nullptr, again));
  const std::string garbage = "{not json";
  EXPECT_TRUE(decisionChanged(&garbage, again));
  const std::string array = "[1]";
  EXPECT_TRUE(decisionChanged(&array, again));
}

TEST_F(LastDecisionTest, AWindowThatHoldsTheSizeIsTheLimit) {
  setScale(6);
  setPods(6, 50);
  decide();
  setPods(6, 10);  // 2 wanted, the 5-minute window keeps 6
  json d = decide();
  EXPECT_EQ(d["recommendedReplicas"], 2);
  EXPECT_EQ(d["stabilizedReplicas"], 6);
  EXPECT_EQ(d["limitedBy"]["reason"], "ScaleDownStabilized");
}

TEST(LastDecision, ADeletedHpaLeavesNone) {
  report::ReconcileReport r;
  r.branch = report::ReconcileBranch::Deleted;
  EXPECT_FALSE(report::lastDecisionDocument(r, Time()));
}

}  // namespace
}  // namespace hpa::controller
