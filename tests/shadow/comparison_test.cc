#include "shadow/comparison.h"

#include <gtest/gtest.h>

namespace hpa::shadow {
namespace {

api::HorizontalPodAutoscalerStatus status(int current, int desired,
                                          std::vector<std::array<const char*, 3>> conditions) {
  api::HorizontalPodAutoscalerStatus s;
  s.currentReplicas = current;
  s.desiredReplicas = desired;
  for (const auto& [type, st, reason] : conditions)
    s.conditions.push_back({type, st, std::nullopt, reason, "text", std::nullopt});
  return s;
}

TEST(ShadowComparison, ReadsTheDecisionFromTheStatus) {
  auto d = decisionOf(status(2, 4,
                             {{"AbleToScale", "True", "SucceededRescale"},
                              {"ScalingActive", "True", "ValidMetricFound"},
                              {"ScalingLimited", "False", "DesiredWithinRange"}}));
  EXPECT_EQ(d, (StatusDecision{2, 4, "True/SucceededRescale", "True/ValidMetricFound",
                               "False/DesiredWithinRange"}));
  EXPECT_EQ(decisionOf(status(3, 3, {})), (StatusDecision{3, 3, "", "", ""}));
}

TEST(ShadowComparison, AgreementIsEqualDesiredReplicasAndConditions) {
  StatusDecision theirs{2, 4, "True/SucceededRescale", "True/ValidMetricFound",
                        "False/DesiredWithinRange"};
  EXPECT_TRUE(compare(theirs, theirs).empty());
  // The current count is an input; only the decision counts.
  StatusDecision sameDecisionOtherInput = theirs;
  sameDecisionOtherInput.currentReplicas = 3;
  EXPECT_TRUE(compare(theirs, sameDecisionOtherInput).empty());
}

TEST(ShadowComparison, EachDifferingFieldIsOneDivergence) {
  StatusDecision theirs{2, 4, "True/SucceededRescale", "True/ValidMetricFound",
                        "False/DesiredWithinRange"};
  StatusDecision ours{2, 5, "True/SucceededRescale", "True/ValidMetricFound", "True/ScaleUpLimit"};
  auto d = compare(theirs, ours);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0], (Divergence{DivergenceKind::DesiredReplicas, "4", "5"}));
  EXPECT_EQ(d[1], (Divergence{DivergenceKind::ScalingLimited, "False/DesiredWithinRange",
                              "True/ScaleUpLimit"}));
  EXPECT_EQ(describe(d),
            "desiredReplicas 4 (ours 5), ScalingLimited False/DesiredWithinRange (ours "
            "True/ScaleUpLimit)");
  // A condition one side does not set diverges too.
  StatusDecision noLimited = theirs;
  noLimited.scalingLimited.clear();
  auto missing = compare(theirs, noLimited);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(describe(missing), "ScalingLimited False/DesiredWithinRange (ours absent)");
}

TEST(ShadowComparison, AStatusWriteIsAnyChangeOfTheStatus) {
  api::HorizontalPodAutoscaler before;
  before.status = status(2, 2, {{"AbleToScale", "True", "ReadyForNewScale"}});
  api::HorizontalPodAutoscaler after = before;
  EXPECT_FALSE(
      statusRewritten(before, after));  // a resync, or a change of the spec or metadata only
  after.metadata.annotations["x"] = "y";
  EXPECT_FALSE(statusRewritten(before, after));
  after.status.desiredReplicas = 3;
  EXPECT_TRUE(statusRewritten(before, after));
}

}  // namespace
}  // namespace hpa::shadow
