#include "replicacalc/normalization.h"

#include <gtest/gtest.h>

#include <cmath>

#include "api/defaults.h"
#include "replicacalc/tolerances.h"

namespace hpa::replicacalc {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const Time kNow = Time(seconds(1'700'000'000));

NormalizationInput input(std::int32_t current, std::int32_t proposed, std::int32_t min = 1,
                         std::int32_t max = 100) {
  return NormalizationInput{current, proposed, min, max, kNow};
}

TEST(WithoutBehavior, ScaleDownWaitsForTheWindow) {
  std::vector<api::TimestampedRecommendation> recs{{8, kNow - minutes(4)}, {6, kNow - minutes(2)}};
  auto r = normalizeWithoutBehavior(recs, input(8, 3), minutes(5));
  EXPECT_EQ(r.stabilized, 8);
  EXPECT_EQ(r.desired, 8);
  EXPECT_EQ(r.ableToScale,
            (ConditionOutcome{"True", "ScaleDownStabilized",
                              "recent recommendations were higher than current one, applying the "
                              "highest recent recommendation"}));
  EXPECT_EQ(r.scalingLimited.status, "False");
  EXPECT_EQ(r.scalingLimited.reason, "DesiredWithinRange");
  ASSERT_EQ(recs.size(), 3u);  // appended: no entry older than the window
  EXPECT_EQ(recs.back().replicas, 3);
}

TEST(WithoutBehavior, OldEntriesAreReusedNotPruned) {
  std::vector<api::TimestampedRecommendation> recs{
      {9, kNow - minutes(20)}, {7, kNow - minutes(10)}, {5, kNow - minutes(1)}};
  auto r = normalizeWithoutBehavior(recs, input(5, 4), minutes(5));
  EXPECT_EQ(r.desired, 5);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[1], (api::TimestampedRecommendation{4, kNow}));  // the last old slot
  EXPECT_EQ(recs[0].replicas, 9);
}

TEST(WithoutBehavior, LimitsAndConditions) {
  struct Case {
    std::int32_t current, proposed, min, max, desired;
    const char* limitedStatus;
    const char* reason;
  };
  for (const auto& c : {Case{10, 50, 1, 100, 20, "True", "ScaleUpLimit"},
                        Case{1, 10, 1, 100, 4, "True", "ScaleUpLimit"},
                        Case{10, 50, 1, 15, 15, "True", "TooManyReplicas"},
                        Case{5, 0, 2, 10, 2, "True", "TooFewReplicas"},
                        Case{5, 7, 1, 10, 7, "False", "DesiredWithinRange"},
                        Case{10, 20, 1, 20, 20, "False", "DesiredWithinRange"}}) {
    std::vector<api::TimestampedRecommendation> recs;
    auto r = normalizeWithoutBehavior(recs, input(c.current, c.proposed, c.min, c.max), minutes(5));
    EXPECT_EQ(r.desired, c.desired) << c.current << "->" << c.proposed;
    EXPECT_EQ(r.scalingLimited.status, c.limitedStatus) << c.current << "->" << c.proposed;
    EXPECT_EQ(r.scalingLimited.reason, c.reason) << c.current << "->" << c.proposed;
    EXPECT_EQ(r.ableToScale.reason, "ReadyForNewScale");
  }
}

api::HorizontalPodAutoscalerBehavior defaultBehavior() {
  api::HorizontalPodAutoscalerBehavior b;
  b.scaleUp = api::defaultScaleUpRules();
  b.scaleDown = api::defaultScaleDownRules();
  return b;
}

TEST(WithBehavior, DefaultScaleUpDoublesOrAddsFour) {
  std::vector<api::TimestampedRecommendation> recs;
  auto r = normalizeWithBehavior(recs, {}, {}, defaultBehavior(), input(10, 50), minutes(5));
  EXPECT_EQ(r.desired, 20);
  EXPECT_EQ(r.scaleUpLimit, 20);
  EXPECT_EQ(r.scalingLimited,
            (ConditionOutcome{"True", "ScaleUpLimit",
                              "the desired replica count is increasing faster than the maximum "
                              "scale rate"}));
  recs.clear();
  r = normalizeWithBehavior(recs, {}, {}, defaultBehavior(), input(1, 50), minutes(5));
  EXPECT_EQ(r.desired, 5);  // Pods policy: 1 + 4
}

TEST(WithBehavior, RecentScaleUpEventsConsumeThePeriod) {
  std::vector<api::TimestampedRecommendation> recs;
  // Went 5 -> 10 ten seconds ago: the period's start is 5, so the limit is max(5+4, 10) = 10.
  std::vector<api::TimestampedScaleEvent> up{{5, kNow - seconds(10), false}};
  auto r = normalizeWithBehavior(recs, up, {}, defaultBehavior(), input(10, 50), minutes(5));
  EXPECT_EQ(r.desired, 10);
  EXPECT_EQ(r.scalingLimited.reason, "ScaleUpLimit");
  // An event older than the period no longer counts.
  up[0].timestamp = kNow - seconds(16);
  recs.clear();
  r = normalizeWithBehavior(recs, up, {}, defaultBehavior(), input(10, 50), minutes(5));
  EXPECT_EQ(r.desired, 20);
}

TEST(WithBehavior, StabilizationWindowsBothWays) {
  auto b = defaultBehavior();
  b.scaleUp->stabilizationWindowSeconds = 60;
  std::vector<api::TimestampedRecommendation> recs{{4, kNow - seconds(30)},
                                                   {12, kNow - seconds(90)}};
  // Scale-up held to the lowest recommendation of the last 60 s.
  auto r = normalizeWithBehavior(recs, {}, {}, b, input(3, 8), minutes(5));
  EXPECT_EQ(r.stabilized, 4);
  EXPECT_EQ(r.ableToScale.reason, "ScaleUpStabilized");
  // Scale-down held to the highest recommendation of the flag's window (scaleDown window unset).
  auto noDownWindow = defaultBehavior();
  noDownWindow.scaleDown->stabilizationWindowSeconds.reset();
  recs = {{12, kNow - seconds(90)}};
  r = normalizeWithBehavior(recs, {}, {}, noDownWindow, input(12, 2), minutes(5));
  EXPECT_EQ(r.downWindowSeconds, 300);
  EXPECT_EQ(r.stabilized, 12);
  EXPECT_EQ(r.ableToScale.reason, "ScaleDownStabilized");
  // An entry exactly at the cutoff is in neither window.
  recs = {{12, kNow - seconds(300)}};
  r = normalizeWithBehavior(recs, {}, {}, noDownWindow, input(12, 2), minutes(5));
  EXPECT_EQ(r.stabilized, 2);
}

TEST(WithBehavior, DisabledAndMinPolicies) {
  auto b = defaultBehavior();
  b.scaleDown->selectPolicy = "Disabled";
  b.scaleDown->stabilizationWindowSeconds = 0;
  std::vector<api::TimestampedRecommendation> recs;
  auto r = normalizeWithBehavior(recs, {}, {}, b, input(10, 2), minutes(5));
  EXPECT_EQ(r.desired, 10);
  EXPECT_EQ(r.scalingLimited.reason, "ScaleDownLimit");

  b = defaultBehavior();
  b.scaleDown->stabilizationWindowSeconds = 0;
  b.scaleDown->selectPolicy = "Min";
  b.scaleDown->policies = std::vector<api::HPAScalingPolicy>{{"Pods", 2, 60}, {"Percent", 50, 60}};
  recs.clear();
  r = normalizeWithBehavior(recs, {}, {}, b, input(10, 1), minutes(5));
  EXPECT_EQ(r.desired, 8);  // Min picks the smallest change: 10-2 = 8 over 10*0.5 = 5

  b.scaleDown->selectPolicy = "Max";
  b.scaleDown->policies = std::vector<api::HPAScalingPolicy>{{"Percent", 15, 60}};
  recs.clear();
  r = normalizeWithBehavior(recs, {}, {}, b, input(7, 1), minutes(5));
  EXPECT_EQ(r.desired, 5);  // int32(7 * 0.85) = int32(5.95) = 5: truncation, not ceil
}

TEST(WithBehavior, MinAndMaxOnlyInTheDirectionOfChange) {
  auto b = defaultBehavior();
  b.scaleDown->stabilizationWindowSeconds = 0;
  std::vector<api::TimestampedRecommendation> recs;
  auto r = normalizeWithBehavior(recs, {}, {}, b, input(10, 1, 3, 100), minutes(5));
  EXPECT_EQ(r.desired, 3);
  EXPECT_EQ(r.scalingLimited.reason, "TooFewReplicas");
  recs.clear();
  r = normalizeWithBehavior(recs, {}, {}, b, input(10, 14, 1, 12), minutes(5));
  EXPECT_EQ(r.desired, 12);
  EXPECT_EQ(r.scalingLimited.reason, "TooManyReplicas");
}

TEST(RecordScaleEvent, ReplacesTheLastOutdatedEvent) {
  auto b = defaultBehavior();  // longest scale-up period 15 s
  std::vector<api::TimestampedScaleEvent> up{{1, kNow - seconds(100), false},
                                             {2, kNow - seconds(50), false},
                                             {3, kNow - seconds(5), false}};
  std::vector<api::TimestampedScaleEvent> down;
  recordScaleEvent(b, up, down, 4, 9, kNow);
  ASSERT_EQ(up.size(), 3u);
  EXPECT_TRUE(up[0].outdated);
  EXPECT_EQ(up[1], (api::TimestampedScaleEvent{5, kNow, false}));
  EXPECT_EQ(up[2].replicaChange, 3);
  recordScaleEvent(b, up, down, 9, 6, kNow);
  ASSERT_EQ(down.size(), 1u);
  EXPECT_EQ(down[0].replicaChange, 3);
}

// The scenario of kubernetes#96671 (scale-up window 30 s, scale-down window 60 s): recommendations
// of 4 twenty seconds ago, now a proposal of 1 at 2 replicas.
api::HorizontalPodAutoscalerBehavior windows30And60() {
  api::HPAScalingRules up;
  up.stabilizationWindowSeconds = 30;
  api::HPAScalingRules down;
  down.stabilizationWindowSeconds = 60;
  return api::HorizontalPodAutoscalerBehavior{up, down};
}

TEST(WithBehavior, CurrentStabilizationNeverTurnsALowProposalIntoAScaleUp) {
  std::vector<api::TimestampedRecommendation> recs{{4, kNow - seconds(20)}};
  auto r = normalizeWithBehavior(recs, {}, {}, windows30And60(), input(2, 1), minutes(5));
  EXPECT_EQ(r.stabilized, 2);  // held between min(4, 1) = 1 and max(4, 1) = 4, from the current 2
  EXPECT_EQ(r.desired, 2);
  EXPECT_EQ(r.ableToScale.reason, "ScaleDownStabilized");
}

TEST(WithBehavior, OneWindowStabilizationOf120TakesTheWindowOfTheProposalsDirection) {
  std::vector<api::TimestampedRecommendation> recs{{4, kNow - seconds(20)}};
  NormalizationInput in = input(2, 1);
  in.rules = decisionRulesOf(20);
  auto r = normalizeWithBehavior(recs, {}, {}, windows30And60(), in, minutes(5));
  EXPECT_EQ(r.stabilized, 4)
      << "1.20: the highest of the scale-down window, above the current size";
  EXPECT_EQ(r.desired, 4);
  EXPECT_EQ(r.ableToScale.reason, "ScaleDownStabilized");
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs.back().replicas, 1) << "the proposal is recorded";

  // A proposal at or above the current size: the lowest of the scale-up window.
  std::vector<api::TimestampedRecommendation> low{{2, kNow - seconds(20)}, {1, kNow - seconds(40)}};
  NormalizationInput upIn = input(2, 5);
  upIn.rules = decisionRulesOf(20);
  auto u = normalizeWithBehavior(low, {}, {}, windows30And60(), upIn, minutes(5));
  EXPECT_EQ(u.stabilized, 2) << "40 s ago is outside the 30 s scale-up window";
  EXPECT_EQ(u.ableToScale.reason, "ScaleUpStabilized");
}

TEST(Tolerances, ReleasesBefore133MeasureTheDistanceFromOne) {
  Tolerances current{0.1, 0.1};
  Tolerances old{0.1, 0.1, /*inclusive=*/false};
  const double ratio = 55.0 / 50.0;  // 55 % of a 50 % target
  EXPECT_TRUE(current.isWithin(ratio)) << "today: 1.1 <= 1.0 + 0.1";
  EXPECT_FALSE(old.isWithin(ratio)) << "1.20: |1 - 1.1| = 0.10000000000000009 > 0.1";
  EXPECT_TRUE(old.isWithin(1.05));
  EXPECT_TRUE(old.isWithin(0.95));
  EXPECT_FALSE(old.isWithin(std::nan("")));
}

TEST(WithBehavior, PoliciesBefore125CountOnlyTheirOwnDirection) {
  // 6 -> 3 twenty seconds ago; now 3 replicas and "at most 2 pods per 30 s" up.
  api::HPAScalingRules up;
  up.policies = std::vector<api::HPAScalingPolicy>{{"Pods", 2, 30}};
  const std::vector<api::TimestampedScaleEvent> down{{3, kNow - seconds(20), false}};
  EXPECT_EQ(scaleUpLimit(3, {}, down, up, kNow), 8) << "today: the period started at 6";
  EXPECT_EQ(scaleUpLimit(3, {}, down, up, kNow, decisionRulesOf(25)), 8)
      << "1.25: the period started at 6";
  EXPECT_EQ(scaleUpLimit(3, {}, down, up, kNow, decisionRulesOf(24)), 5) << "1.24: at 3";
}

}  // namespace
}  // namespace hpa::replicacalc
