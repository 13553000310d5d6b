#include "report/decision_summary.h"

#include <gtest/gtest.h>

namespace hpa::report {
namespace {

ReconcileReport metricsReport(std::int32_t current, std::int32_t proposed, std::int32_t stabilized,
                              std::int32_t desired) {
  ReconcileReport r;
  r.branch = ReconcileBranch::Metrics;
  r.currentReplicas = current;
  r.minReplicas = 1;
  r.maxReplicas = 10;
  r.metricReplicas = proposed;
  r.metricName = "cpu resource utilization (percentage of request)";
  MetricReport m;
  m.type = "Resource";
  m.name = r.metricName;
  m.proposal = proposed;
  m.calculation = replicacalc::Calculation{};
  r.metrics.push_back(m);
  replicacalc::NormalizationResult n;
  n.proposed = proposed;
  n.stabilized = stabilized;
  n.desired = desired;
  n.ableToScale = {"True", stabilized != proposed ? "ScaleDownStabilized" : "ReadyForNewScale", ""};
  n.scalingLimited = {desired != stabilized ? "True" : "False",
                      desired != stabilized ? (desired == 10 ? "TooManyReplicas" : "ScaleUpLimit")
                                            : "DesiredWithinRange",
                      ""};
  r.normalization = n;
  r.desiredReplicas = desired;
  r.rescale = desired != current;
  return r;
}

TEST(DecisionSummary, FailedMetricsKeepTheSizeAndNameTheFailure) {
  // Upstream leaves status.desiredReplicas as it was (0 for a new HPA): the target keeps 1.
  ReconcileReport r;
  r.branch = ReconcileBranch::MetricsFailed;
  r.currentReplicas = 1;
  r.desiredReplicas = 0;
  MetricReport m;
  m.type = "Resource";
  m.error =
      "failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned";
  m.conditionReason = "FailedGetResourceMetric";
  r.metrics.push_back(m);
  auto s = summarize(r);
  EXPECT_EQ(s.current, 1);
  EXPECT_EQ(s.next, 1);
  EXPECT_FALSE(s.rescale);
  EXPECT_EQ(s.metric, "Resource");
  EXPECT_EQ(s.why, "FailedGetResourceMetric: " + *m.error);
}

TEST(DecisionSummary, WhyItKeepsTheSize) {
  auto tolerance = metricsReport(4, 4, 4, 4);
  tolerance.metrics[0].calculation->withinTolerance = true;
  EXPECT_EQ(summarize(tolerance).why, "within tolerance");
  EXPECT_EQ(summarize(metricsReport(4, 4, 4, 4)).why, "metrics at target");
  EXPECT_EQ(summarize(metricsReport(4, 2, 4, 4)).why,
            "ScaleDownStabilized (proposed 2, window keeps 4)");
  EXPECT_EQ(summarize(metricsReport(10, 14, 14, 10)).why, "TooManyReplicas (max 10)");
  auto s = summarize(metricsReport(4, 4, 4, 4));
  EXPECT_EQ(s.next, 4);
  EXPECT_FALSE(s.rescale);
}

TEST(DecisionSummary, WhyItScales) {
  auto r = metricsReport(2, 9, 9, 4);
  r.reason = "cpu resource utilization (percentage of request) above target";
  auto s = summarize(r);
  EXPECT_TRUE(s.rescale);
  EXPECT_EQ(s.next, 4);
  EXPECT_EQ(
      s.why,
      "cpu resource utilization (percentage of request) above target; ScaleUpLimit (at most 4)");

  // The metrics propose the current 8; the window's earlier 13, capped at the maximum, moves it.
  EXPECT_EQ(summarize(metricsReport(8, 8, 13, 10)).why, "TooManyReplicas (max 10)");

  auto paused = metricsReport(2, 3, 3, 3);
  paused.rescale = false;
  paused.reason = "cpu resource utilization (percentage of request) above target";
  paused.controls.pausedScaleTo = 3;
  auto p = summarize(paused);
  EXPECT_EQ(p.next, 2);
  EXPECT_EQ(
      p.why,
      "paused (would scale to 3: cpu resource utilization (percentage of request) above target)");
  EXPECT_STREQ(verdictOf(paused), "paused");
  // A pause in one direction names it.
  paused.controls.controls.pause = controls::Pause::ScaleUp;
  EXPECT_EQ(summarize(paused).why,
            "scale-up paused (would scale to 3: cpu resource utilization (percentage of request) "
            "above target)");
  EXPECT_STREQ(verdictOf(paused), "paused");

  ReconcileReport failed;
  failed.branch = ReconcileBranch::FailedGetScale;
  failed.events.push_back({"Warning", "FailedGetScale", "deployments.apps \"web\" not found"});
  EXPECT_EQ(summarize(failed).why, "FailedGetScale: deployments.apps \"web\" not found");
}

// The summary and the recorded decision answer "why not the proposal" with one function: a
// schedule window's bound that decided is named in both.
TEST(DecisionSummary, AScheduleWindowThatHeldTheSizeIsTheReason) {
  auto r = metricsReport(6, 6, 6, 6);
  r.maxReplicas = 6;
  r.controls.schedule = controls::ControlsReport::Schedule{};
  r.controls.schedule->held = true;
  r.status.conditions.push_back(
      {api::kScalingLimited, api::kConditionTrue, std::nullopt, api::kScheduledMaxReplicas,
       "the desired replica count is more than the maximum replica count 6 of schedule "
       "window weekday-cap",
       std::nullopt});
  EXPECT_EQ(summarize(r).why, "ScheduledMaxReplicas (max 6)");
  r.controls.schedule->held = false;
  EXPECT_EQ(summarize(r).why, "metrics at target");
}

// ... and so is the forecast's floor.
TEST(DecisionSummary, AForecastFloorThatDecidedTheSizeIsTheReason) {
  auto r = metricsReport(3, 8, 8, 8);
  r.reason = "the forecast of cpu needs 8 replicas";
  r.controls.forecast = controls::ControlsReport::Forecast{};
  r.controls.forecast->floor = 8;
  r.controls.forecast->held = true;
  r.status.conditions.push_back(
      {api::kScalingLimited, api::kConditionTrue, std::nullopt, api::kForecastFloor,
       "the desired replica count is less than the forecast floor 8", std::nullopt});
  EXPECT_EQ(summarize(r).why, "the forecast of cpu needs 8 replicas; ForecastFloor (floor 8)");
}

}  // namespace
}  // namespace hpa::report
