#include "shadow/cause.h"

#include <gtest/gtest.h>

#include <limits>

#include "shadow/shadow_fixture.h"

namespace hpa::shadow {
namespace {

using controller::fixture::kPodStart;
using controller::fixture::PodBuilder;
using fixture::ShadowComparerTest;
using std::chrono::seconds;

class CauseTest : public ShadowComparerTest {
 protected:
  // Our own reconcile of 6 replicas at their target: the window starts holding 6.
  void reconcileSteadyAtSix() {
    setScale(6);
    setPods(6, 50);
    ASSERT_TRUE(reconcile().status.ok());
  }
  // 3 replicas: two ready pods at 30 % and a third, new one without metrics, which the other
  // controller had not listed yet (two pods at 30 % give it 2; the third, assumed at the target on
  // a scale-down, gives us 3).
  void twoPodsAtThirtyAndOneTheyDidNotCount() {
    setScale(3);
    setPods(2, 30);
    pods_.add(PodBuilder("web-new")
                  .label("app", "web")
                  .startTime(kPodStart)
                  .ready("True", kPodStart + seconds(5))
                  .container("app", 100)
                  .build());
  }
};

TEST_F(CauseTest, TheSameDecisionIsAgree) {
  setScale(6);
  setPods(3, 150);
  const auto result = compareNow(written(3, 6, "SucceededRescale", "ScaleUpLimit", 150));
  EXPECT_EQ(result.cause.cause, Cause::Agree);
  ASSERT_EQ(observer_.causes.size(), 0u)
      << "the observer hears of it from the worker, not compare()";
}

TEST_F(CauseTest, AMetricThatMovedBetweenTheTwoReadsIsInputs) {
  // They read 3 pods at 90 % (of a 50 % target) and scaled to 6; by our read the load fell to 60 %.
  setScale(6);
  setPods(3, 60);
  const auto result = compareNow(written(3, 6, "SucceededRescale", "DesiredWithinRange", 90));
  ASSERT_FALSE(result.divergences.empty());
  EXPECT_EQ(result.ours.desiredReplicas, 4);
  EXPECT_EQ(result.cause.cause, Cause::Inputs) << result.cause.detail;
  EXPECT_NE(result.cause.detail.find("theirs 90%, ours 60%"), std::string::npos)
      << result.cause.detail;
  EXPECT_NE(result.cause.detail.find("propose 6"), std::string::npos) << result.cause.detail;
}

TEST_F(CauseTest, APodTheyDidNotCountIsInputs) {
  twoPodsAtThirtyAndOneTheyDidNotCount();
  const auto result = compareNow(written(3, 2, "SucceededRescale", "DesiredWithinRange", 30));
  ASSERT_EQ(result.ours.desiredReplicas, 3);
  EXPECT_EQ(result.cause.cause, Cause::Inputs) << result.cause.detail;
  EXPECT_NE(result.cause.detail.find("pods counted differently"), std::string::npos)
      << result.cause.detail;
}

TEST_F(CauseTest, TheProposalThatExplainsTheirScaleDownIsWhatTheirWindowRecords) {
  // They scaled 3 -> 2 from two pods at 30 % (a third, new pod not yet counted); we counted it at
  // the target and proposed 3. Had their window recorded our 3, their next sync (two pods at 30 %,
  // proposing 2) would be held at 3 in it, a divergence of our own making; it recorded their 2.
  twoPodsAtThirtyAndOneTheyDidNotCount();
  hpa_.status = written(3, 3, "ReadyForNewScale", "DesiredWithinRange", 50)
                    .status;  // they had decided before
  const auto first = compareNow(written(3, 2, "SucceededRescale", "DesiredWithinRange", 30));
  ASSERT_EQ(first.cause.cause, Cause::Inputs) << first.cause.detail;
  ASSERT_EQ(first.cause.theirProposal, 2);
  clock_.step(seconds(15));
  setScale(2);
  setPods(2, 30);
  const auto next = compareNow(written(2, 2, "ReadyForNewScale", "DesiredWithinRange", 30));
  EXPECT_EQ(next.ours.desiredReplicas, 2);
  EXPECT_TRUE(next.divergences.empty()) << describe(next.divergences) << " " << next.cause.detail;
}

TEST(TheirRecordedProposalTest, ADecisionBelowTheCurrentSizeBoundsTheProposalItCameFrom) {
  api::HorizontalPodAutoscalerSpec spec;
  spec.maxReplicas = 10;
  const auto decided = [](std::int32_t current, std::int32_t desired) {
    StatusDecision d;
    d.currentReplicas = current;
    d.desiredReplicas = desired;
    return d;
  };
  const replicacalc::DecisionRules current;
  const replicacalc::DecisionRules kcm120 = replicacalc::decisionRulesOf(20);
  EXPECT_EQ(theirRecordedProposal(3, decided(3, 2), spec, current), 2) << "a scale-down";
  EXPECT_EQ(theirRecordedProposal(1, decided(3, 2), spec, current), 1) << "already below it";
  EXPECT_EQ(theirRecordedProposal(5, decided(3, 5), spec, current), 5) << "a scale-up";
  EXPECT_EQ(theirRecordedProposal(4, decided(3, 3), spec, current), 4)
      << "kept by a limit or window";
  EXPECT_EQ(theirRecordedProposal(std::nullopt, decided(3, 2), spec, current), std::nullopt);
  EXPECT_EQ(theirRecordedProposal(12, decided(12, 10), spec, current), 12)
      << "lowered to the maximum";
  spec.behavior = api::HorizontalPodAutoscalerBehavior{};
  EXPECT_EQ(theirRecordedProposal(3, decided(3, 2), spec, current), 2);
  EXPECT_EQ(theirRecordedProposal(3, decided(3, 2), spec, kcm120), 3)
      << "1.20's scale-up window may take a lower value for a proposal at the current size";
  EXPECT_EQ(theirRecordedProposal(2, decided(4, 1), spec, kcm120), 1);
}

TEST_F(CauseTest, InputsThatDoNotGiveTheirDecisionAreNotInputs) {
  // Their 90 % proposes 6, yet they wrote 9: neither their values nor a window we know gives it.
  setScale(6);
  setPods(3, 60);
  clock_.step(std::chrono::minutes(10));
  setPods(3, 60);
  auto first = compareNow(written(3, 4, "SucceededRescale", "DesiredWithinRange", 60));
  EXPECT_EQ(first.cause.cause, Cause::Agree) << describe(first.divergences);
  clock_.step(std::chrono::minutes(6));
  setPods(3, 60);
  const auto result = compareNow(written(3, 9, "SucceededRescale", "DesiredWithinRange", 90));
  EXPECT_EQ(result.cause.cause, Cause::Rules) << result.cause.detail;
}

TEST_F(CauseTest, AWindowHoldingAValueRecordedAtAnotherInstantIsHistory) {
  reconcileSteadyAtSix();
  // 305 s later our window (300 s) no longer holds that 6; theirs, recorded at its own sync a few
  // seconds after ours, still does. Same inputs on both sides: 25 % proposes 3.
  clock_.step(seconds(305));
  setPods(6, 25);
  const auto result = compareNow(written(6, 6, "ScaleDownStabilized", "DesiredWithinRange", 25));
  EXPECT_EQ(result.ours.desiredReplicas, 3);
  EXPECT_EQ(result.cause.cause, Cause::History) << result.cause.detail;
  EXPECT_NE(result.cause.detail.find("window holds [3, 6]"), std::string::npos)
      << result.cause.detail;
}

TEST_F(CauseTest, TheFirstWindowAfterStartIsWarmup) {
  // Nothing followed yet: they hold 6 from a window we never saw (they decided before); the load
  // asks for 3.
  hpa_.status = written(6, 6, "ReadyForNewScale", "DesiredWithinRange", 50).status;
  setScale(6);
  setPods(6, 25);
  const auto result = compareNow(written(6, 6, "ScaleDownStabilized", "DesiredWithinRange", 25));
  EXPECT_EQ(result.ours.desiredReplicas, 3);
  EXPECT_EQ(result.cause.cause, Cause::Warmup) << result.cause.detail;
}

TEST_F(CauseTest, TheirFirstDecisionEverHoldsOnlyTheSizeTheyStartedFrom) {
  // Our own reconcile recorded 8 before they ever decided; then the target went to 6. Their first
  // sync (the status they replaced was never written) started its window from the 6 it read, not
  // from anything we recorded: 25 % proposes 3 and they keep 6.
  setScale(8);
  setPods(8, 50);
  ASSERT_TRUE(reconcile().status.ok());
  hpa_.status =
      {};  // a shadow writes nothing: the status is still unwritten when they first decide
  clock_.step(seconds(30));
  setScale(6);
  setPods(6, 25);
  const auto result = compareNow(written(6, 6, "ScaleDownStabilized", "DesiredWithinRange", 25));
  EXPECT_EQ(result.ours.desiredReplicas, 6);
  EXPECT_TRUE(result.divergences.empty())
      << describe(result.divergences) << " " << result.cause.detail;
}

TEST_F(CauseTest, TheSizeTheyStartedFromHoldsAfterAFirstSyncWhoseMetricsFailed) {
  // Their first sync read 2 replicas and no metrics; 15 s later 15 % proposes 1 and the 2 their
  // first sync started from keeps them at 2 (the e2e case: not a difference of rules).
  setScale(2);
  metrics_.resource.erase("cpu");
  auto failed = written(2, 2, "SucceededGetScale", "DesiredWithinRange");
  failed.status.conditions[1].status = "False";
  failed.status.conditions[1].reason = "FailedGetResourceMetric";
  failed.status.conditions.pop_back();
  compareNow(failed);
  hpa_.status = failed.status;
  clock_.step(seconds(15));
  setPods(2, 15);
  const auto result = compareNow(written(2, 2, "ScaleDownStabilized", "DesiredWithinRange", 15));
  EXPECT_EQ(result.ours.desiredReplicas, 2);
  EXPECT_TRUE(result.divergences.empty())
      << describe(result.divergences) << " " << result.cause.detail;
}

TEST_F(CauseTest, AnotherToleranceIsRulesOnceTheWindowIsKnown) {
  // The other controller runs with a tolerance of 0.5: 60 % of a 50 % target keeps its 3, ours
  // proposes 4. While the shadow has not followed a whole window this is warmup; after, rules.
  hpa_.status = written(3, 3, "ReadyForNewScale", "DesiredWithinRange", 60).status;
  setScale(3);
  setPods(3, 60);
  const auto first = compareNow(written(3, 3, "ReadyForNewScale", "DesiredWithinRange", 60));
  EXPECT_EQ(first.cause.cause, Cause::Warmup) << first.cause.detail;
  for (int sync = 0; sync < 21; ++sync) {
    clock_.step(seconds(15));
    setPods(3, 60 + sync % 2);  // their status changes with the load: each sync is a write
    const auto again =
        compareNow(written(3, 3, "ReadyForNewScale", "DesiredWithinRange", 60 + sync % 2));
    ASSERT_EQ(again.ours.desiredReplicas, 4);
    if (sync == 20) {
      EXPECT_EQ(again.cause.cause, Cause::Rules) << again.cause.detail;
      EXPECT_NE(again.cause.detail.find("proposal 4"), std::string::npos) << again.cause.detail;
    }
  }
}

TEST_F(CauseTest, ARecommendationAtTheInt32LimitIsSearchedInBoundedTime) {
  // A window whose lowest entry is the int32 minimum: the search spans [0, max], not 2^31 values.
  setScale(3);
  setPods(3, 60);
  api::HorizontalPodAutoscaler after = written(3, 3, "ScaleUpStabilized", "DesiredWithinRange", 60);
  after.spec.behavior = api::HorizontalPodAutoscalerBehavior{};
  after.spec.behavior->scaleUp = api::HPAScalingRules{};
  after.spec.behavior->scaleUp->stabilizationWindowSeconds = 60;
  hpa_.spec.behavior = after.spec.behavior;
  hpa_.status = after.status;  // not their first decision: that would hold the 3 they started from
  const auto first = compareNow(after);
  ASSERT_EQ(first.ours.desiredReplicas, 4);
  report::ReconcileReport ours = first.report;
  std::vector<Divergence> divergences = first.divergences;
  CauseInputs in;
  in.hpa = &after;
  in.ours = &ours;
  in.divergences = &divergences;
  in.recommendations = {{std::numeric_limits<std::int32_t>::min(), clock_.now() - seconds(10)}};
  in.options = &options_;
  in.decidedAt = clock_.now();
  in.observedFor = std::chrono::minutes(10);
  EXPECT_EQ(findCause(in).cause, Cause::History)
      << "a scale-up window holding 3 or less gives their 3";
}

TEST_F(CauseTest, TheirWindowWithoutOurValueLimitedAtMaxReplicasIsHistory) {
  // At maxReplicas 6 with a 60 s scale-up window: our window holds the 6 of our own sync 15 s ago,
  // so 60 % (proposing 8) stays at 6, stabilized; theirs held no 6 (recorded at other instants),
  // went to 8 and was limited to 6 by maxReplicas. Same size, other conditions: a window's
  // content, not a rule (bench-shadow's day found one such comparison classed rules).
  hpa_.spec.maxReplicas = 6;
  hpa_.spec.behavior = api::HorizontalPodAutoscalerBehavior{};
  hpa_.spec.behavior->scaleUp = api::HPAScalingRules{};
  hpa_.spec.behavior->scaleUp->stabilizationWindowSeconds = 60;
  reconcileSteadyAtSix();
  clock_.step(seconds(15));
  setPods(6, 60);
  const api::HorizontalPodAutoscaler after =
      written(6, 6, "ReadyForNewScale", "TooManyReplicas", 60);
  const auto first = compareNow(after);
  ASSERT_EQ(first.ours.desiredReplicas, 6);
  ASSERT_FALSE(first.divergences.empty());
  report::ReconcileReport ours = first.report;
  std::vector<Divergence> divergences = first.divergences;
  CauseInputs in;
  in.hpa = &after;
  in.ours = &ours;
  in.divergences = &divergences;
  in.recommendations = {{6, clock_.now() - seconds(15)}};
  in.options = &options_;
  in.decidedAt = clock_.now();
  in.observedFor = std::chrono::minutes(10);  // out of the warm-up: the window is known
  const auto cause = findCause(in);
  EXPECT_EQ(cause.cause, Cause::History) << cause.detail;
}

TEST_F(CauseTest, AnAverageReportedOverNoReplicasIsNotTakenForTheirProposal) {
  // Their first sync of an External AverageValue HPA read a target whose status counted no
  // replicas yet: kube-controller-manager 1.20 then reports the per-pod average of the total over
  // zero replicas, an undefined number (the int64 minimum on amd64), while it decided from the
  // total. Taken back into a total it gave a proposal of 0, which a scale-up window then held: 10 s
  // later their 4 came out as our 2.
  options_.decisionRules = replicacalc::decisionRulesOf(20);  // the day benchmark's rules
  api::HorizontalPodAutoscalerBehavior behavior;
  behavior.scaleUp = api::HPAScalingRules{};
  behavior.scaleUp->stabilizationWindowSeconds = 30;
  behavior.scaleDown = api::HPAScalingRules{};
  behavior.scaleDown->policies = {{"Percent", 50, 30}};
  hpa_.spec.behavior = behavior;
  hpa_.spec.minReplicas = 2;
  api::MetricSpec queue;
  queue.source = api::ExternalMetricSource{
      {"queue", std::nullopt},
      {"AverageValue", std::nullopt, api::Quantity::parse("5").value(), std::nullopt}};
  hpa_.spec.metrics = {queue};
  setScale(4);
  const auto writtenWithAverage = [&](const char* average) {
    auto after = written(4, 4, "ReadyForNewScale", "DesiredWithinRange");
    api::MetricStatus status;
    status.type = api::kExternalMetric;
    status.external = api::ExternalMetricStatus{
        {"queue", std::nullopt},
        api::MetricValueStatus{api::Quantity::parse("0").value(),
                               api::Quantity::parse(average).value(), std::nullopt}};
    after.status.currentMetrics = {status};
    return after;
  };
  metrics_.external.insert_or_assign("queue",
                                     metricsclient::ExternalMetricResult{{18542}, clock_.now()});
  const auto first = writtenWithAverage("-9223372036854775808m");
  EXPECT_EQ(proposalFromReported(first, compareNow(first).report, options_), std::nullopt);
  hpa_.status = first.status;
  clock_.step(std::chrono::milliseconds(10800));
  metrics_.external.insert_or_assign("queue",
                                     metricsclient::ExternalMetricResult{{16013}, clock_.now()});
  const auto next = compareNow(writtenWithAverage("4004m"));
  EXPECT_EQ(next.ours.desiredReplicas, 4);
  EXPECT_TRUE(next.divergences.empty()) << describe(next.divergences) << " " << next.cause.detail;
}

TEST(WarmupSpanTest, IsTheLongestWindowTheNormalizationConsults) {
  controller::ControllerOptions options;
  options.downscaleStabilizationWindow = seconds(120);
  api::HorizontalPodAutoscalerSpec spec;
  EXPECT_EQ(warmupSpan(spec, options), Duration(seconds(120)));
  spec.behavior = api::HorizontalPodAutoscalerBehavior{};
  spec.behavior->scaleUp = api::HPAScalingRules{};
  spec.behavior->scaleUp->stabilizationWindowSeconds = 600;
  EXPECT_EQ(warmupSpan(spec, options), Duration(seconds(600)));
  spec.behavior->scaleUp->stabilizationWindowSeconds = 0;
  spec.behavior->scaleDown = api::HPAScalingRules{};
  spec.behavior->scaleDown->stabilizationWindowSeconds = 30;
  EXPECT_EQ(warmupSpan(spec, options), Duration(seconds(30)));
}

}  // namespace
}  // namespace hpa::shadow
