#include "shadow/comparer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "shadow/shadow_fixture.h"

namespace hpa::shadow {
namespace {

using fixture::ShadowComparerTest;

TEST_F(ShadowComparerTest, TheSameDecisionFromTheSameInputsAgrees) {
  // They read 3 replicas at 150 % of a 50 % target, and scaled to 6 before we look.
  setScale(6);
  setPods(3, 150);
  const auto result = compareNow(written(3, 6, "SucceededRescale", "ScaleUpLimit"));
  EXPECT_TRUE(result.divergences.empty()) << describe(result.divergences);
  EXPECT_EQ(result.ours.currentReplicas, 3)
      << "decided from the count they read, not the one they made";
  EXPECT_EQ(result.ours.desiredReplicas, 6);
  EXPECT_TRUE(status_.writes.empty() || status_.writes.size() == 1u);
  EXPECT_FALSE(controller().history().get("default/web")) << "the comparison keeps no history";
}

TEST_F(ShadowComparerTest, AnotherDecisionIsADivergenceOfEachFieldThatDiffers) {
  setScale(3);
  setPods(3, 60);  // 20 % above target: beyond our tolerance of 0.1, within theirs of 0.5
  const auto result = compareNow(written(3, 3, "ReadyForNewScale", "DesiredWithinRange"));
  ASSERT_EQ(result.divergences.size(), 2u) << describe(result.divergences);
  EXPECT_EQ(result.divergences[0], (Divergence{DivergenceKind::DesiredReplicas, "3", "4"}));
  EXPECT_EQ(result.divergences[1].kind, DivergenceKind::AbleToScale);
  EXPECT_EQ(result.divergences[1].theirs, "True/ReadyForNewScale");
  EXPECT_EQ(result.divergences[1].ours, "True/SucceededRescale");
  ASSERT_FALSE(result.report.metrics.empty());
  EXPECT_TRUE(result.report.metrics[0].calculation) << "our inputs are there for the log line";
}

TEST_F(ShadowComparerTest, AnHpaWithAControlThatChangesItsDecisionIsNotComparable) {
  setScale(3);
  setPods(3, 150);
  EXPECT_TRUE(compareNow(written(3, 6, "SucceededRescale", "ScaleUpLimit")).notComparable.empty());
  // kube-controller-manager does not read the pause: it scales up where we hold.
  hpa_.metadata.annotations["hpa-controller.io/paused"] = "ScaleUp";
  const auto result = compareNow(written(3, 6, "SucceededRescale", "ScaleUpLimit"));
  EXPECT_THAT(result.notComparable, ::testing::ElementsAre("hpa-controller.io/paused: ScaleUp"));
  // Bookkeeping alone keeps it comparable.
  hpa_.metadata.annotations = {{"hpa-controller.io/record-decision", "true"}};
  EXPECT_TRUE(compareNow(written(3, 6, "SucceededRescale", "ScaleUpLimit")).notComparable.empty());
}

}  // namespace
}  // namespace hpa::shadow
