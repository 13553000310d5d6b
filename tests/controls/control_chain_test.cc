// The controls at their fixed points, without a reconcile: a fake view stands where the
// reconcile stands, so each control's part is seen on its own.

#include "controls/control_chain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "controls/last_decision.h"
#include "fake_reconcile.h"
#include "fakes/pod_builder.h"

namespace hpa::controls {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Proposal scaleUp() {
  Proposal p;
  p.currentReplicas = 3;
  p.desiredReplicas = 5;
  p.reason = "cpu above target";
  return p;
}

MetricsSetup setupOf(std::int32_t minReplicas, std::int32_t maxReplicas, Duration maxAge) {
  MetricsSetup setup;
  setup.minReplicas = minReplicas;
  setup.maxReplicas = maxReplicas;
  setup.metricsMaxAge = maxAge;
  return setup;
}

// A failed metric offered to the chain; returns what the controls proposed for it.
std::optional<FallbackReport> failOnce(ControlChain& chain, FakeReconcile& reconcile) {
  const Error error = Error::of("metrics unavailable");
  std::optional<FallbackReport> fallback;
  FailedMetric failed{0, error, false, 3, fallback};
  chain.metricFailed(reconcile, failed);
  return fallback;
}

TEST(ControlChain, WithoutControlsNothingChanges) {
  ControlChain chain(nullptr);
  FakeReconcile reconcile(chain, {});
  MetricsSetup setup = setupOf(2, 10, seconds(7));
  chain.beforeMetrics(reconcile, setup);
  EXPECT_EQ(setup.minReplicas, 2);
  EXPECT_EQ(setup.maxReplicas, 10);
  EXPECT_EQ(setup.metricsMaxAge, seconds(7));
  EXPECT_EQ(setup.podFilter, nullptr);
  for (auto stage : {Proposal::Stage::OutsideBounds, Proposal::Stage::FromMetrics,
                     Proposal::Stage::Normalized, Proposal::Stage::BeforeRescale}) {
    Proposal proposal = scaleUp();
    chain.afterProposal(reconcile, stage, proposal);
    EXPECT_EQ(proposal.desiredReplicas, 5);
    EXPECT_TRUE(proposal.rescale);
    EXPECT_FALSE(proposal.limit);
  }
  EXPECT_FALSE(failOnce(chain, reconcile));
  chain.beforeWrite(reconcile);
  EXPECT_THAT(reconcile.events, IsEmpty());
}

TEST(ControlChain, TheSyncPeriodAndPodSelectionChangeHowMetricsAreRead) {
  ControlChain chain(nullptr);
  FakeReconcile reconcile(chain, {{kSyncPeriodAnnotation, "40s"},
                                  {kPodSelectionAnnotation, "OwnerReferences"},
                                  {kRequestsSourceAnnotation, "Actuated"}});
  MetricsSetup setup = setupOf(1, 10, seconds(7));
  chain.beforeMetrics(reconcile, setup);
  EXPECT_EQ(setup.metricsMaxAge, seconds(20));
  EXPECT_EQ(setup.requestsSource, replicacalc::RequestsSource::Actuated);
  ASSERT_NE(setup.podFilter, nullptr);
  api::Pod other;
  other.name = "batch-1";
  other.controller = api::PodOwner{"Job", "batch"};
  EXPECT_FALSE(*setup.podFilter->counts(reconcile, other));
  EXPECT_THAT(reconcile.controlsReport().podsNotOwned, ElementsAre("batch-1"));
}

TEST(ControlChain, TheReportStartsWithTheControlsAndAnyRecordedDecision) {
  ControlChain chain(nullptr);
  FakeReconcile plain(chain, {{kPausedAnnotation, "true"}});
  EXPECT_EQ(plain.controls().pause, Pause::Both);
  EXPECT_FALSE(plain.controlsReport().lastDecisionStored);
  FakeReconcile recorded(chain, {{kLastDecisionAnnotation, "{}"}});
  EXPECT_TRUE(recorded.controlsReport().lastDecisionStored);
}

// Every HPA is told of pods resized in place (explain shows them), whatever requests it counts.
TEST(ControlChain, CountedRequestsNoteThePodsBeingResized) {
  ControlChain chain(nullptr);
  FakeReconcile reconcile(chain, {});
  const api::Pod resizing =
      hpa::testing::PodBuilder("web-0").container("app", 200).actuated("app", 100).build();
  const api::Pod steady = hpa::testing::PodBuilder("web-1").container("app", 200).build();
  const std::vector<const api::Pod*> pods{&resizing, &steady, &resizing};
  const std::string resource = "cpu";
  const std::string container;
  chain.requestsCounted(reconcile, {pods, resource, container, replicacalc::DecisionRules{}});
  EXPECT_THAT(reconcile.controlsReport().resizingPods,
              ElementsAre(ControlsReport::ResizingPod{"web-0", "cpu", 200, 100}));
}

TEST(ControlChain, APauseHoldsOnlyTheRescaleAndSaysSoBeforeTheWrite) {
  ControlChain chain(nullptr);
  FakeReconcile reconcile(chain, {{kPausedAnnotation, "true"}});
  Proposal proposal = scaleUp();
  chain.afterProposal(reconcile, Proposal::Stage::FromMetrics, proposal);
  EXPECT_TRUE(proposal.rescale);
  chain.afterProposal(reconcile, Proposal::Stage::BeforeRescale, proposal);
  EXPECT_FALSE(proposal.rescale);
  EXPECT_TRUE(proposal.rescaleHeld);
  EXPECT_EQ(reconcile.controlsReport().pausedScaleTo, 5);
  chain.beforeWrite(reconcile);
  ASSERT_NE(reconcile.conditionNow(api::kScalingActive), nullptr);
  EXPECT_EQ(reconcile.conditionNow(api::kScalingActive)->reason, "ScalingPaused");
  EXPECT_THAT(reconcile.events, ElementsAre(SeenEvent{"Normal", "ScalingPaused"}));
}

TEST(ControlChain, AFallbackIsDueAfterItsThresholdAndForgottenWithTheHpa) {
  ControlChain chain(nullptr);
  FakeReconcile reconcile(chain, {{kFallbackAnnotation, "after=2,replicas=6"}});
  EXPECT_FALSE(failOnce(chain, reconcile));
  const auto second = failOnce(chain, reconcile);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->replicas, 6);
  EXPECT_EQ(second->run.failures, 2);
  EXPECT_EQ(second->metric, "cpu resource");
  chain.forget("default/web");
  EXPECT_FALSE(failOnce(chain, reconcile));  // the run starts again

  // A decision that keeps nothing sees its own failure only, and counts nothing.
  FakeReconcile deciding(chain, {{kFallbackAnnotation, "after=2,replicas=6"}},
                         /*keepsState=*/false);
  EXPECT_FALSE(failOnce(chain, deciding));
  EXPECT_FALSE(failOnce(chain, deciding));
}

TEST(ControlChain, AFallbackThatProposesIsAnnouncedOnce) {
  ControlChain chain(nullptr);
  FakeReconcile reconcile(chain, {{kFallbackAnnotation, "after=1,replicas=6"}});
  reconcile.fallbacks[0] = failOnce(chain, reconcile);
  ASSERT_TRUE(reconcile.fallbacks[0]);
  chain.afterMetrics(reconcile, /*decided=*/true);
  ASSERT_NE(reconcile.conditionNow(api::kScalingActive), nullptr);
  EXPECT_EQ(reconcile.conditionNow(api::kScalingActive)->reason, "MetricFallback");
  EXPECT_THAT(reconcile.events, ElementsAre(SeenEvent{"Warning", "MetricFallback"}));
  EXPECT_TRUE(reconcile.controlsReport().fallbackStarted);
}

TEST(ControlChain, InvalidValuesAreCarriedInScalingActiveAndWarnedOncePerChange) {
  ControlChain chain(nullptr);
  FakeReconcile reconcile(chain, {{kPausedAnnotation, "maybe"}});
  reconcile.condition(api::kScalingActive, api::kConditionTrue, "ValidMetricFound",
                      "upstream's text");
  chain.beforeWrite(reconcile);
  EXPECT_THAT(
      reconcile.conditionNow(api::kScalingActive)->message,
      HasSubstr(
          "upstream's text; invalid controls: hpa-controller.io/paused \"maybe\" is invalid"));
  chain.beforeWrite(reconcile);
  EXPECT_THAT(reconcile.events, ElementsAre(SeenEvent{"Warning", "InvalidControl"}));
}

}  // namespace
}  // namespace hpa::controls
