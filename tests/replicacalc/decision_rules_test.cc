#include "replicacalc/decision_rules.h"

#include <gtest/gtest.h>

#include "replicacalc/feature_gates.h"

namespace hpa::replicacalc {
namespace {

// Each rule and the release that brought it, written out again here (docs/behavior.md's table),
// so that a change of the table in decision_rules.cc is a deliberate one.
TEST(DecisionRules, EachReleaseHasExactlyTheRulesOfItsRelease) {
  const std::pair<bool DecisionRules::*, int> since[] = {
      {&DecisionRules::containerResourceMetrics, 20},
      {&DecisionRules::stabilizationEnvelope, 21},
      {&DecisionRules::partialInvalidMetricsBlockScaleDown, 21},
      {&DecisionRules::plainMetricDirectionGuard, 21},
      {&DecisionRules::policyPeriodCountsBothDirections, 25},
      {&DecisionRules::missingPodsAtTargetUtilization, 26},
      {&DecisionRules::containerResourceMetricName, 27},
      {&DecisionRules::containerMetricsGateChecked, 27},
      {&DecisionRules::exactRatioLeavesMissingPodsOut, 28},
      {&DecisionRules::sidecarRequests, 29},
      {&DecisionRules::missingContainerIsMissingPod, 32},
      {&DecisionRules::inclusiveTolerance, 33},
      {&DecisionRules::podLevelRequests, 34},
      {&DecisionRules::scaledToZeroCondition, 36},
  };
  ASSERT_EQ(ruleChanges().size(), std::size(since));
  for (int minor = kOldestRulesMinor; minor <= kNewestRulesMinor; ++minor) {
    const DecisionRules rules = decisionRulesOf(minor);
    EXPECT_EQ(rules.minor, minor);
    for (const auto& [rule, release] : since)
      EXPECT_EQ(rules.*rule, minor >= release) << "1." << minor;
  }
  EXPECT_EQ(decisionRulesOf(kNewestRulesMinor), DecisionRules{})
      << "the default is the newest release";
  EXPECT_EQ(decisionRulesOf(20).release(), "1.20");
}

TEST(DecisionRules, GateDefaultsPerRelease) {
  auto on = [](int minor, bool FeatureGates::*gate) { return defaultFeatureGates(minor).*gate; };
  EXPECT_FALSE(on(26, &FeatureGates::hpaContainerMetrics));
  EXPECT_TRUE(on(27, &FeatureGates::hpaContainerMetrics));
  EXPECT_FALSE(on(34, &FeatureGates::hpaConfigurableTolerance));
  EXPECT_TRUE(on(35, &FeatureGates::hpaConfigurableTolerance));
  EXPECT_FALSE(on(36, &FeatureGates::hpaScaleToZero));
  EXPECT_TRUE(on(37, &FeatureGates::hpaScaleToZero));
  EXPECT_FALSE(on(33, &FeatureGates::podLevelResources));
  EXPECT_TRUE(on(34, &FeatureGates::podLevelResources));
  EXPECT_FALSE(on(36, &FeatureGates::hpaGeneration));
  EXPECT_TRUE(on(37, &FeatureGates::hpaGeneration));
  EXPECT_EQ(decisionRulesOf(37).gates, FeatureGates{});
}

TEST(DecisionRules, ServerReleasesOutsideTheKnownOnesTakeTheNearest) {
  EXPECT_EQ(rulesMinorBeside(16), 18);
  EXPECT_EQ(rulesMinorBeside(25), 25);
  EXPECT_EQ(rulesMinorBeside(40), 37);
}

TEST(FeatureGates, GivenGatesOverrideTheReleaseAndLockedOnesRefuseOff) {
  std::vector<std::string> ignored;
  auto rules =
      withFeatureGates(decisionRulesOf(34),
                       {{"HPAConfigurableTolerance", true}, {"PodLevelResources", false}}, ignored);
  ASSERT_TRUE(rules.ok());
  EXPECT_TRUE(rules->gates.hpaConfigurableTolerance);
  EXPECT_FALSE(rules->gates.podLevelResources);
  EXPECT_TRUE(rules->behaviorTolerances());
  EXPECT_FALSE(rules->usesPodLevelRequests());
  EXPECT_TRUE(ignored.empty());

  // A gate the release does not know yet, one no decision depends on, one never decided by.
  rules = withFeatureGates(decisionRulesOf(30),
                           {{"HPAConfigurableTolerance", true},
                            {"CronJobsScheduledAnnotation", true},
                            {"StaleControllerConsistencyHPA", false}},
                           ignored);
  ASSERT_TRUE(rules.ok());
  EXPECT_FALSE(rules->gates.hpaConfigurableTolerance);
  ASSERT_EQ(ignored.size(), 3u);
  EXPECT_EQ(ignored[0],
            "feature gate HPAConfigurableTolerance: kube-controller-manager 1.30 does not know it "
            "(it came "
            "in 1.33); ignored");
  EXPECT_EQ(ignored[1],
            "feature gate CronJobsScheduledAnnotation: no HPA decision depends on it; ignored");
  EXPECT_EQ(ignored[2],
            "feature gate StaleControllerConsistencyHPA: hpa-controller always works as with it "
            "on; ignored");

  auto locked =
      withFeatureGates(decisionRulesOf(37), {{"HPAConfigurableTolerance", false}}, ignored);
  ASSERT_FALSE(locked.ok());
  EXPECT_EQ(locked.error().message,
            "feature gate HPAConfigurableTolerance is GA in kube-controller-manager 1.37 and "
            "locked to true; it cannot "
            "be set to false");
  EXPECT_TRUE(
      withFeatureGates(decisionRulesOf(36), {{"HPAConfigurableTolerance", false}}, ignored).ok())
      << "beta in 1.36: may be turned off";
  EXPECT_FALSE(
      withFeatureGates(decisionRulesOf(30), {{"HPAContainerMetrics", false}}, ignored).ok());
  EXPECT_TRUE(
      withFeatureGates(decisionRulesOf(29), {{"HPAContainerMetrics", false}}, ignored).ok());
}

}  // namespace
}  // namespace hpa::replicacalc
