#include "shadow/comparer.h"

#include <gtest/gtest.h>

#include "controller/reconcile_fixture.h"

namespace hpa::shadow {
namespace {

using controller::fixture::ReconcileTest;

class NoObserver final : public ShadowObserver {
 public:
  void compared(const std::string&, const std::string&, const std::vector<Divergence>&) override {}
  void hpaForgotten(const std::string&, const std::string&) override {}
};

class ShadowComparerTest : public ReconcileTest {
 protected:
  ShadowComparer& comparer() {
    if (!comparer_) {
      controller().hpaAdded("default/web");  // the informer's add, as for a reconcile
      comparer_ = std::make_unique<ShadowComparer>(controller(), observer_, Logger::discard(), [] { return true; });
    }
    return *comparer_;
  }
  // The HPA after another controller read `current` replicas and wrote `desired` with the
  // conditions it chose.
  api::HorizontalPodAutoscaler written(std::int32_t current, std::int32_t desired, const std::string& ableToScale,
                                       const std::string& scalingLimited) {
    api::HorizontalPodAutoscaler after = hpa_;
    after.status.currentReplicas = current;
    after.status.desiredReplicas = desired;
    after.status.conditions = {{"AbleToScale", "True", std::nullopt, ableToScale, "", std::nullopt},
                               {"ScalingActive", "True", std::nullopt, "ValidMetricFound", "", std::nullopt},
                               {"ScalingLimited", scalingLimited == "DesiredWithinRange" ? "False" : "True",
                                std::nullopt, scalingLimited, "", std::nullopt}};
    return after;
  }

  NoObserver observer_;
  std::unique_ptr<ShadowComparer> comparer_;
};

TEST_F(ShadowComparerTest, TheSameDecisionFromTheSameInputsAgrees) {
  // They read 3 replicas at 150 % of a 50 % target, and scaled to 6 before we look.
  setScale(6);
  setPods(3, 150);
  const auto result = comparer().compare(hpa_, written(3, 6, "SucceededRescale", "ScaleUpLimit"));
  EXPECT_TRUE(result.divergences.empty()) << describe(result.divergences);
  EXPECT_EQ(result.ours.currentReplicas, 3) << "decided from the count they read, not the one they made";
  EXPECT_EQ(result.ours.desiredReplicas, 6);
  EXPECT_TRUE(status_.writes.empty() || status_.writes.size() == 1u);
  EXPECT_FALSE(controller().history().get("default/web")) << "the comparison keeps no history";
}

TEST_F(ShadowComparerTest, AnotherDecisionIsADivergenceOfEachFieldThatDiffers) {
  setScale(3);
  setPods(3, 60);  // 20 % above target: beyond our tolerance of 0.1, within theirs of 0.5
  const auto result = comparer().compare(hpa_, written(3, 3, "ReadyForNewScale", "DesiredWithinRange"));
  ASSERT_EQ(result.divergences.size(), 2u) << describe(result.divergences);
  EXPECT_EQ(result.divergences[0], (Divergence{DivergenceKind::DesiredReplicas, "3", "4"}));
  EXPECT_EQ(result.divergences[1].kind, DivergenceKind::AbleToScale);
  EXPECT_EQ(result.divergences[1].theirs, "True/ReadyForNewScale");
  EXPECT_EQ(result.divergences[1].ours, "True/SucceededRescale");
  ASSERT_FALSE(result.report.metrics.empty());
  EXPECT_TRUE(result.report.metrics[0].calculation) << "our inputs are there for the log line";
}

}  // namespace
}  // namespace hpa::shadow
