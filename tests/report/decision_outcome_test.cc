#include "report/decision_outcome.h"

#include <gtest/gtest.h>

#include "controller/conditions.h"

namespace hpa::report {
namespace {

const Time kNow = Time(std::chrono::seconds(1'700'000'000));

// A metrics-branch report: the metric proposed `proposed`, normalization kept `stabilized` and
// `limitReason` ("" for none) made it `desired`.
ReconcileReport report(std::int32_t current, std::int32_t proposed, std::int32_t stabilized,
                       std::int32_t desired, const std::string& limitReason = "",
                       bool behavior = false) {
  ReconcileReport r;
  r.branch = ReconcileBranch::Metrics;
  r.currentReplicas = current;
  r.metricReplicas = proposed;
  MetricReport m;
  m.type = "Resource";
  m.proposal = proposed;
  r.metrics.push_back(m);
  replicacalc::NormalizationResult n;
  n.proposed = proposed;
  n.stabilized = stabilized;
  n.desired = desired;
  n.behaviorPolicies = behavior;
  n.ableToScale = {"True", stabilized > proposed ? "ScaleDownStabilized" : "ReadyForNewScale", ""};
  n.scalingLimited = {limitReason.empty() ? "False" : "True",
                      limitReason.empty() ? "DesiredWithinRange" : limitReason, ""};
  r.normalization = n;
  r.desiredReplicas = desired;
  controller::setCondition(r.status, api::kScalingActive, api::kConditionTrue, "ValidMetricFound",
                           "", kNow);
  return r;
}

TEST(DecisionOutcome, NamesTheLimitTheReconcileReported) {
  EXPECT_EQ(outcomeOf(report(4, 4, 4, 4), kNow).limitedBy, DecisionLimit::None);
  EXPECT_EQ(outcomeOf(report(10, 14, 14, 10, "TooManyReplicas"), kNow).limitedBy,
            DecisionLimit::MaxReplicas);
  EXPECT_EQ(outcomeOf(report(2, 1, 1, 2, "TooFewReplicas"), kNow).limitedBy,
            DecisionLimit::MinReplicas);
  EXPECT_EQ(outcomeOf(report(2, 9, 9, 4, "ScaleUpLimit"), kNow).limitedBy,
            DecisionLimit::ScaleUpLimit);
  EXPECT_EQ(outcomeOf(report(2, 9, 9, 4, "ScaleUpLimit", true), kNow).limitedBy,
            DecisionLimit::BehaviorPolicy);
  EXPECT_EQ(outcomeOf(report(8, 2, 2, 6, "ScaleDownLimit", true), kNow).limitedBy,
            DecisionLimit::BehaviorPolicy);
  EXPECT_EQ(outcomeOf(report(4, 2, 4, 4), kNow).limitedBy, DecisionLimit::StabilizationWindow);

  auto paused = report(2, 3, 3, 3);
  paused.controls.pausedScaleTo = 3;
  EXPECT_EQ(outcomeOf(paused, kNow).limitedBy, DecisionLimit::Paused);

  auto scheduled = report(2, 2, 2, 5);
  scheduled.controls.schedule = controls::ControlsReport::Schedule{};
  scheduled.controls.schedule->held = true;
  controller::setCondition(scheduled.status, api::kScalingLimited, api::kConditionTrue,
                           "ScheduledMinReplicas", "", kNow);
  EXPECT_EQ(outcomeOf(scheduled, kNow).limitedBy, DecisionLimit::ScheduleWindow);

  auto forecast = report(2, 2, 2, 6);
  forecast.controls.forecast = controls::ControlsReport::Forecast{};
  forecast.controls.forecast->held = true;
  controller::setCondition(forecast.status, api::kScalingLimited, api::kConditionTrue,
                           api::kForecastFloor, "", kNow);
  EXPECT_EQ(outcomeOf(forecast, kNow).limitedBy, DecisionLimit::Forecast);

  ReconcileReport above;
  above.branch = ReconcileBranch::AboveMaxReplicas;
  EXPECT_EQ(outcomeOf(above, kNow).limitedBy, DecisionLimit::MaxReplicas);
  ReconcileReport below;
  below.branch = ReconcileBranch::BelowMinReplicas;
  EXPECT_EQ(outcomeOf(below, kNow).limitedBy, DecisionLimit::MinReplicas);
}

TEST(DecisionOutcome, AFallbackDecidesUnlessALimitHeldIt) {
  auto r = report(3, 6, 6, 6);
  r.metrics[0].error = "no metrics returned";
  r.metrics[0].fallback = controls::FallbackReport{"cpu resource", {}, 6};
  auto o = outcomeOf(r, kNow);
  EXPECT_EQ(o.limitedBy, DecisionLimit::Fallback);
  EXPECT_FALSE(o.metricsReadAt) << "a fallback is no successful read";

  auto capped = report(3, 12, 12, 10, "TooManyReplicas");
  capped.metrics[0].fallback = controls::FallbackReport{"cpu resource", {}, 12};
  EXPECT_EQ(outcomeOf(capped, kNow).limitedBy, DecisionLimit::MaxReplicas);
}

TEST(DecisionOutcome, CarriesTheSizesTheConditionAndTheReadTime) {
  auto o = outcomeOf(report(2, 9, 9, 4, "ScaleUpLimit"), kNow);
  EXPECT_EQ(o.currentReplicas, 2);
  EXPECT_EQ(o.desiredReplicas, 4);
  EXPECT_EQ(o.proposedReplicas, 9);
  EXPECT_TRUE(o.scalingActive);
  EXPECT_EQ(o.metricsReadAt, kNow);

  ReconcileReport failed;
  failed.branch = ReconcileBranch::MetricsFailed;
  failed.currentReplicas = 3;
  MetricReport m;
  m.error = "no metrics returned";
  failed.metrics.push_back(m);
  controller::setCondition(failed.status, api::kScalingActive, api::kConditionFalse,
                           "FailedGetResourceMetric", "", kNow);
  o = outcomeOf(failed, kNow);
  EXPECT_FALSE(o.scalingActive);
  EXPECT_FALSE(o.proposedReplicas);
  EXPECT_FALSE(o.metricsReadAt);
  EXPECT_EQ(o.limitedBy, DecisionLimit::None);
}

TEST(DecisionOutcome, CarriesTheForecastAndItsFloorWhileThereIsOne) {
  auto r = report(2, 3, 3, 3);
  r.controls.forecast = controls::ControlsReport::Forecast{};
  r.controls.forecast->metric = "cpu";
  EXPECT_FALSE(outcomeOf(r, kNow).forecast) << "no forecast made: nothing to export";
  r.controls.forecast->value = 2.5;
  r.controls.forecast->floor = 5;
  const auto o = outcomeOf(r, kNow);
  ASSERT_TRUE(o.forecast);
  EXPECT_EQ(*o.forecast, (DecisionOutcome::Forecast{"cpu", 2.5, 5}));
  EXPECT_EQ(o.limitedBy, DecisionLimit::None) << "a floor that did not decide limits nothing";
}

TEST(DecisionOutcome, LimitNamesAreTheFixedVocabulary) {
  const char* names[] = {"none",           "minReplicas",    "maxReplicas",
                         "scaleUpLimit",   "behaviorPolicy", "stabilizationWindow",
                         "scheduleWindow", "paused",         "fallback",
                         "forecast"};
  for (int i = 0; i < kDecisionLimitCount; ++i)
    EXPECT_STREQ(limitName(static_cast<DecisionLimit>(i)), names[i]);
}

}  // namespace
}  // namespace hpa::report
