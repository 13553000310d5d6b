// The decision flags' table and the choice of rules (the routes through the command line are
// tests/cmd/decision_flags_test.cc).
#include "controller/decision_flags.h"

#include <gtest/gtest.h>

#include "controller/horizontal_controller.h"

namespace hpa::controller {
namespace {

TEST(DecisionFlagTable, NamesEveryDecisionFlagOnceWithItsDefault) {
  std::vector<std::string> names;
  for (const auto& flag : decisionFlags()) names.emplace_back(flag.name);
  EXPECT_EQ(names, (std::vector<std::string>{"horizontal-pod-autoscaler-tolerance",
                                             "horizontal-pod-autoscaler-downscale-stabilization",
                                             "horizontal-pod-autoscaler-cpu-initialization-period",
                                             "horizontal-pod-autoscaler-initial-readiness-delay",
                                             "decision-rules", "feature-gates"}));
  const DecisionFlagValues defaults;
  EXPECT_EQ(defaults.tolerance, "0.1");
  EXPECT_EQ(defaults.downscaleStabilization, "5m0s");
  EXPECT_EQ(defaults.decisionRules, "auto");
  auto parsed = parseDecisionFlags(defaults);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, DecisionSettings{}) << "the text defaults parse to the typed ones";
  EXPECT_EQ(findDecisionFlag("decision-rules")->value, &DecisionFlagValues::decisionRules);
  EXPECT_EQ(findDecisionFlag("horizontal-pod-autoscaler-sync-period"), nullptr);
}

TEST(DecisionFlagTable, ReleasesAndGatesInKubeControllerManagersSyntax) {
  DecisionFlagValues values;
  values.decisionRules = "current";
  values.featureGates = " HPAScaleToZero=True , PodLevelResources=0,,";
  auto parsed = parseDecisionFlags(values);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->rulesMinor, 37);
  EXPECT_EQ(parsed->featureGates, (std::vector<std::pair<std::string, bool>>{
                                      {"HPAScaleToZero", true}, {"PodLevelResources", false}}));
  for (const char* bad : {"1.", "1.x", "1.20.1", "v1.20", "2.20", "1.38"}) {
    values.decisionRules = bad;
    EXPECT_FALSE(parseDecisionFlags(values).ok()) << bad;
  }
  values.decisionRules = "1.18";
  values.featureGates = "HPAScaleToZero=yes";
  auto notBool = parseDecisionFlags(values);
  ASSERT_FALSE(notBool.ok());
  EXPECT_EQ(notBool.error().message,
            "invalid value \"HPAScaleToZero=yes\" for --feature-gates: HPAScaleToZero: "
            "\"yes\" is not a boolean (true or false)");
  values.featureGates = "=true";
  EXPECT_FALSE(parseDecisionFlags(values).ok());
}

TEST(ChooseDecisionRules, AutoFollowsTheServerAGivenReleaseDoesNot) {
  DecisionSettings settings;
  auto offline = chooseDecisionRules(settings, std::nullopt);
  ASSERT_TRUE(offline.ok());
  EXPECT_EQ(offline->rules, replicacalc::DecisionRules{});
  EXPECT_EQ(
      offline->choice,
      "decision rules: kube-controller-manager 1.37's, the newest (--decision-rules=auto, and "
      "no API server asked)");
  auto beside = chooseDecisionRules(settings, ServerRelease{23, "v1.23.17"});
  EXPECT_EQ(beside->rules.minor, 23);
  EXPECT_TRUE(beside->warnings.empty());

  settings.rulesMinor = 22;
  auto given = chooseDecisionRules(settings, ServerRelease{23, "v1.23.17"});
  EXPECT_EQ(given->rules.minor, 22);
  ASSERT_EQ(given->warnings.size(), 1u);
  EXPECT_EQ(given->choice, "decision rules: kube-controller-manager 1.22's (--decision-rules)");
}

TEST(ChooseDecisionRules, OptionsCarryTheSettingsAndTheRules) {
  DecisionSettings settings;
  settings.tolerance = 0.2;
  settings.initialReadinessDelay = std::chrono::seconds(10);
  const auto options = controllerOptionsOf(settings, replicacalc::decisionRulesOf(20));
  EXPECT_EQ(options.tolerance, 0.2);
  EXPECT_EQ(options.delayOfInitialReadinessStatus, std::chrono::seconds(10));
  EXPECT_EQ(options.decisionRules.minor, 20);
  EXPECT_EQ(options.syncPeriod, ControllerOptions{}.syncPeriod);
}

TEST(DecisionFlagArguments, GiveTheSameDecisionOfflineAsLive) {
  DecisionFlagValues values;
  EXPECT_TRUE(decisionFlagArguments(values, replicacalc::DecisionRules{}).empty());
  values.tolerance = "0.2";
  EXPECT_EQ(decisionFlagArguments(values, replicacalc::decisionRulesOf(26)),
            (std::vector<std::string>{"--horizontal-pod-autoscaler-tolerance=0.2",
                                      "--decision-rules=1.26"}))
      << "auto chose 1.26 beside the server: offline it must be named";
  values.decisionRules = "current";
  values.featureGates = "HPAScaleToZero=false";
  EXPECT_EQ(decisionFlagArguments(values, replicacalc::decisionRulesOf(37)),
            (std::vector<std::string>{"--horizontal-pod-autoscaler-tolerance=0.2",
                                      "--decision-rules=current",
                                      "--feature-gates=HPAScaleToZero=false"}));
}

TEST(ApplyDecisionFlag, OneFlagOverOptionsKeepsTheRest) {
  ControllerOptions options;
  options.syncPeriod = std::chrono::seconds(30);
  std::vector<std::string> ignored;
  ASSERT_TRUE(
      applyDecisionFlag(*findDecisionFlag("decision-rules"), "1.34", options, ignored).ok());
  ASSERT_TRUE(applyDecisionFlag(*findDecisionFlag("feature-gates"),
                                "HPAConfigurableTolerance=true,X=true", options, ignored)
                  .ok());
  EXPECT_EQ(options.decisionRules.minor, 34);
  EXPECT_TRUE(options.decisionRules.gates.hpaConfigurableTolerance);
  EXPECT_EQ(ignored.size(), 1u);
  EXPECT_EQ(options.syncPeriod, std::chrono::seconds(30));
  auto bad = applyDecisionFlag(*findDecisionFlag("horizontal-pod-autoscaler-tolerance"), "-1",
                               options, ignored);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "invalid value \"-1\" for --horizontal-pod-autoscaler-tolerance: must not be negative");
}

}  // namespace
}  // namespace hpa::controller
