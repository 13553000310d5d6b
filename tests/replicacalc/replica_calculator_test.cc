#include "replicacalc/replica_calculator.h"

#include <gtest/gtest.h>

#include <limits>

#include "fakes/pod_builder.h"

namespace hpa::replicacalc {
namespace {

using hpa::testing::PodBuilder;
using std::chrono::minutes;
using std::chrono::seconds;

const Time kStart = Time(seconds(1'700'000'000));
const Time kNow = kStart + minutes(10);  // past the cpu initialization period
const Tolerances kDefaultTolerance{0.1, 0.1};

// A fixture holding pods (the calculator takes pointers) and metrics.
struct Scenario {
  std::vector<api::Pod> pods;
  PodMetricsInfo metrics;

  Scenario& pod(const PodBuilder& b, std::optional<std::int64_t> metric,
                Time sampled = kNow - seconds(30)) {
    api::Pod p = b.build();
    if (metric) metrics[p.name] = PodMetric{*metric, sampled, minutes(1)};
    pods.push_back(std::move(p));
    return *this;
  }
  std::vector<const api::Pod*> pointers() const {
    std::vector<const api::Pod*> out;
    for (const auto& p : pods) out.push_back(&p);
    return out;
  }
  ResourceUtilizationInput utilization(std::int32_t current, std::int32_t target,
                                       Time now = kNow) const {
    return ResourceUtilizationInput{
        current,    target,  "cpu", "",  kDefaultTolerance,
        pointers(), metrics, kNow,  now, CalculatorOptions{minutes(5), seconds(30), true}};
  }
  PlainMetricInput plain(std::int32_t current, std::int64_t target,
                         std::string resource = "") const {
    return PlainMetricInput{current,
                            target,
                            std::move(resource),
                            kDefaultTolerance,
                            pointers(),
                            metrics,
                            kNow,
                            kNow,
                            CalculatorOptions{minutes(5), seconds(30), true}};
  }
};

PodBuilder cpuPod(const std::string& name, std::int64_t request = 1000) {
  return PodBuilder(name)
      .startTime(kStart)
      .ready("True", kStart + seconds(10))
      .container("app", request);
}

// docs/behavior.md, section 5, worked example 1.
TEST(ResourceUtilization, ScalesUpByRatioTimesReadyPods) {
  Scenario s;
  for (auto name : {"a", "b", "c"}) s.pod(cpuPod(name, 100), 150);
  auto calc = calcResourceUtilizationReplicas(s.utilization(3, 50));
  ASSERT_TRUE(calc.ok()) << calc.error().message;
  EXPECT_EQ(calc->replicas, 9);
  EXPECT_EQ(calc->utilization, 150);
  EXPECT_EQ(calc->usage, 150);
  EXPECT_DOUBLE_EQ(calc->usageRatio, 3.0);
  EXPECT_EQ(calc->timestamp, kNow);
}

TEST(ResourceUtilization, UpstreamScaleUpAndDownTables) {
  struct Case {
    std::vector<std::int64_t> usage;
    std::int32_t target;
    std::int32_t expectedReplicas;
    std::int32_t expectedUtilization;
  };
  for (const auto& c :
       {Case{{300, 500, 700}, 30, 5, 50}, Case{{100, 300, 500, 250, 250}, 50, 3, 28},
        Case{{1010, 1030, 1020}, 100, 3, 102}, Case{{0, 0, 0}, 50, 0, 0}}) {
    Scenario s;
    for (size_t i = 0; i < c.usage.size(); ++i) s.pod(cpuPod("p" + std::to_string(i)), c.usage[i]);
    auto calc = calcResourceUtilizationReplicas(
        s.utilization(static_cast<std::int32_t>(c.usage.size()), c.target));
    ASSERT_TRUE(calc.ok()) << calc.error().message;
    EXPECT_EQ(calc->replicas, c.expectedReplicas);
    EXPECT_EQ(calc->utilization, c.expectedUtilization);
  }
}

// docs/behavior.md, section 5, worked example 2: a missing pod on scale-down counts at
// max(100, target) % of its request.
TEST(ResourceUtilization, MissingPodOnScaleDownAssumedAtRequest) {
  Scenario s;
  for (auto name : {"a", "b", "c"}) s.pod(cpuPod(name, 100), 10);
  s.pod(cpuPod("d", 100), std::nullopt);
  auto calc = calcResourceUtilizationReplicas(s.utilization(4, 50));
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->utilization, 10);
  EXPECT_DOUBLE_EQ(*calc->rebalancedRatio, 0.64);
  EXPECT_EQ(calc->replicas, 3);
  EXPECT_EQ(calc->pods[3].group, PodGroup::Missing);
  EXPECT_EQ(calc->pods[3].assumedValue, 100);
}

// docs/behavior.md, section 5, worked example 3: a Pending pod counts as idle on scale-up.
TEST(ResourceUtilization, UnreadyPodOnScaleUpAssumedIdle) {
  Scenario s;
  s.pod(cpuPod("a", 100), 200)
      .pod(cpuPod("b", 100), 200)
      .pod(cpuPod("c", 100).phase("Pending"), std::nullopt);
  auto calc = calcResourceUtilizationReplicas(s.utilization(3, 50));
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->utilization, 200);
  EXPECT_EQ(calc->replicas, 8);
  EXPECT_EQ(calc->readyPodCount, 2);
}

TEST(ResourceUtilization, UnreadyPodsIgnoredOnScaleDown) {
  Scenario s;
  s.pod(cpuPod("a"), 100).pod(cpuPod("b"), 300).pod(cpuPod("c"), 500);
  s.pod(cpuPod("d").ready("False", kStart + seconds(5)), 250)
      .pod(cpuPod("e").ready("False", kStart + seconds(5)), 250);
  auto calc = calcResourceUtilizationReplicas(s.utilization(5, 50));
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->utilization, 30);
  EXPECT_EQ(calc->replicas, 2);
}

TEST(ResourceUtilization, UnreadyPodsDampenScaleUp) {
  Scenario s;
  s.pod(cpuPod("a").ready("False", kStart + seconds(5)), 300)
      .pod(cpuPod("b"), 500)
      .pod(cpuPod("c"), 700);
  auto calc = calcResourceUtilizationReplicas(s.utilization(3, 30));
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->utilization, 60);
  EXPECT_EQ(calc->replicas, 4);
}

TEST(ResourceUtilization, BoundaryRatioIsWithinTolerance) {
  Scenario s;
  s.pod(cpuPod("a"), 550);
  auto calc = calcResourceUtilizationReplicas(s.utilization(1, 50));
  ASSERT_TRUE(calc.ok());
  EXPECT_DOUBLE_EQ(calc->usageRatio, 1.1);
  EXPECT_EQ(calc->replicas, 1);
}

TEST(ResourceUtilization, UtilizationTruncatesBeforeTheRatio) {
  Scenario s;
  s.pod(cpuPod("a"), 549);
  auto calc = calcResourceUtilizationReplicas(s.utilization(1, 50));
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->utilization, 54);
  EXPECT_DOUBLE_EQ(calc->usageRatio, 54.0 / 50.0);
}

TEST(ResourceUtilization, RebalancingThatFlipsDirectionKeepsCurrent) {
  // First pass says scale up (ratio 1.6); the two missing pods at 0 bring it below 1.
  Scenario s;
  s.pod(cpuPod("a"), 800).pod(cpuPod("b"), std::nullopt).pod(cpuPod("c"), std::nullopt);
  auto calc = calcResourceUtilizationReplicas(s.utilization(3, 50));
  ASSERT_TRUE(calc.ok());
  EXPECT_DOUBLE_EQ(calc->usageRatio, 1.6);
  EXPECT_LT(*calc->rebalancedRatio, 1.0);
  EXPECT_EQ(calc->replicas, 3);
}

TEST(ResourceUtilization, CpuReadinessRulesDuringInitialization) {
  const Time now = kStart + minutes(2);  // within the 5 min initialization period
  Scenario s;
  // Ready, sample taken a full window after becoming ready: counts.
  s.pod(cpuPod("fresh").ready("True", kStart + seconds(10)), 500, kStart + seconds(90));
  // Became ready 30 s before the sample (window 1 min): start-up cost may be in it -> unready.
  s.pod(cpuPod("recent").ready("True", kStart + seconds(60)), 900, kStart + seconds(90));
  // Not ready during initialization -> unready.
  s.pod(cpuPod("notready").ready("False", kStart + seconds(10)), 900, kStart + seconds(90));
  // Unknown readiness is not False.
  s.pod(cpuPod("unknown").ready("Unknown", kStart), 500, kStart + seconds(90));
  // No Ready condition at all -> unready.
  s.pod(cpuPod("nocond").noReadyCondition(), 900, kStart + seconds(90));
  auto calc = calcResourceUtilizationReplicas(s.utilization(5, 50, now));
  ASSERT_TRUE(calc.ok()) << calc.error().message;
  std::vector<PodGroup> groups;
  for (const auto& p : calc->pods) groups.push_back(p.group);
  EXPECT_EQ(groups, (std::vector<PodGroup>{PodGroup::Ready, PodGroup::Unready, PodGroup::Unready,
                                           PodGroup::Ready, PodGroup::Unready}));
  EXPECT_EQ(calc->readyPodCount, 2);
  EXPECT_EQ(calc->utilization, 50);  // only the two ready pods
}

TEST(ResourceUtilization, CpuReadinessAfterInitialization) {
  Scenario s;
  // Unready and never ready since start (transition within the readiness delay): unready.
  s.pod(cpuPod("never").ready("False", kStart + seconds(20)), 900);
  // Unready but was ready later on (transition after start + delay): counts as ready.
  s.pod(cpuPod("flapped").ready("False", kStart + minutes(3)), 500);
  auto calc = calcResourceUtilizationReplicas(s.utilization(2, 50));
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->pods[0].group, PodGroup::Unready);
  EXPECT_EQ(calc->pods[1].group, PodGroup::Ready);
}

TEST(ResourceUtilization, IgnoresDeletedAndFailedPods) {
  Scenario s;
  s.pod(cpuPod("a"), 500)
      .pod(cpuPod("gone").deleting(kNow), 5000)
      .pod(cpuPod("dead").phase("Failed"), 5000);
  auto calc = calcResourceUtilizationReplicas(s.utilization(1, 50));
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->utilization, 50);
  EXPECT_EQ(calc->replicas, 1);
  EXPECT_EQ(calc->pods[1].group, PodGroup::Ignored);
  EXPECT_EQ(calc->pods[2].group, PodGroup::Ignored);
}

TEST(ResourceUtilization, ErrorsCarryUpstreamTexts) {
  Scenario none;
  EXPECT_EQ(calcResourceUtilizationReplicas(none.utilization(1, 50)).error().message,
            "no pods returned by selector while calculating replica count");
  Scenario pending;
  pending.pod(cpuPod("a").phase("Pending"), 100);
  EXPECT_EQ(calcResourceUtilizationReplicas(pending.utilization(1, 50)).error().message,
            "did not receive metrics for targeted pods (pods might be unready)");
  Scenario noRequest;
  noRequest.pod(PodBuilder("a").containerWithoutRequests("app"), 100);
  EXPECT_EQ(calcResourceUtilizationReplicas(noRequest.utilization(1, 50)).error().message,
            "missing request for cpu in container app of Pod a");
  // Only a sample of a pod the lister did not return: it has no request.
  Scenario stranger;
  stranger.pod(cpuPod("a"), std::nullopt);
  stranger.metrics["elsewhere"] = PodMetric{100, kNow, minutes(1)};
  EXPECT_EQ(calcResourceUtilizationReplicas(stranger.utilization(1, 50)).error().message,
            "no metrics returned matched known pods");
}

TEST(ResourceUtilization, ContainerAndPodLevelRequests) {
  Scenario s;
  s.pod(PodBuilder("a")
            .container("app", 200)
            .container("sidecar", 800)
            .initContainer("log", 1000, true)
            .initContainer("setup", 5000, false),
        1000);
  auto input = s.utilization(1, 50);
  auto calc = calcResourceUtilizationReplicas(input);
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->pods[0].request,
            2000);  // containers + restartable init container, not ordinary init

  input.container = "app";
  calc = calcResourceUtilizationReplicas(input);
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->pods[0].request, 200);

  input.container = "nope";
  EXPECT_EQ(calcResourceUtilizationReplicas(input).error().message,
            "container nope not found in Pod a");

  Scenario podLevel;
  podLevel.pod(
      PodBuilder("p").containerWithoutRequests("app").podRequest("cpu", 400).overhead("cpu", 100),
      250);
  calc = calcResourceUtilizationReplicas(podLevel.utilization(1, 50));
  ASSERT_TRUE(calc.ok()) << calc.error().message;
  EXPECT_EQ(calc->pods[0].request, 500);
  EXPECT_EQ(calc->utilization, 50);
}

TEST(PlainMetric, AveragesIncludeSamplesOfUnlistedPods) {
  Scenario s;
  s.pod(PodBuilder("a"), 1000).pod(PodBuilder("b"), 3000);
  s.metrics["unlisted"] = PodMetric{5000, kNow, minutes(1)};
  auto calc = calcPlainMetricReplicas(s.plain(2, 1000));
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->usage, 3000);  // (1000 + 3000 + 5000) / 3
  EXPECT_EQ(calc->replicas, 6);  // ceil(3.0 x 2 ready pods)
}

TEST(PlainMetric, MissingPodsOnScaleDownCountAtTarget) {
  Scenario s;
  s.pod(PodBuilder("a"), 100).pod(PodBuilder("b"), 100).pod(PodBuilder("c"), std::nullopt);
  auto calc = calcPlainMetricReplicas(s.plain(3, 1000));
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->usage, 100);
  // (100 + 100 + 1000) / 3 = 400 -> 0.4 -> ceil(0.4 x 3) = 2
  EXPECT_DOUBLE_EQ(*calc->rebalancedRatio, 0.4);
  EXPECT_EQ(calc->replicas, 2);
}

TEST(PlainMetric, ReadinessIsIgnoredForCustomMetricsButNotForCpuAverageValue) {
  Scenario s;
  s.pod(PodBuilder("a").ready("False", kStart + seconds(5)).container("app", 1000), 3000)
      .pod(cpuPod("b"), 3000);
  auto custom = calcPlainMetricReplicas(s.plain(2, 1000));
  ASSERT_TRUE(custom.ok());
  EXPECT_EQ(custom->readyPodCount, 2);
  EXPECT_EQ(custom->replicas, 6);
  auto cpu = calcPlainMetricReplicas(s.plain(2, 1000, "cpu"));
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(cpu->readyPodCount, 1);
  // 3000 / 1000 = 3 with one unready pod -> it counts as 0: 1500 -> 1.5 x 2 = 3
  EXPECT_EQ(cpu->replicas, 3);
}

TEST(ObjectValue, ScalesRunningReadyPodsByTheRatio) {
  Scenario s;
  for (auto n : {"a", "b", "c", "d"}) s.pod(PodBuilder(n), std::nullopt);
  s.pod(PodBuilder("pending").phase("Pending"), std::nullopt);
  // Worked example 5 of docs/behavior.md, section 5, has the same arithmetic for external metrics.
  auto calc =
      calcObjectValueReplicas({4, 30000, 10000, kDefaultTolerance, s.pointers(), std::nullopt});
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->replicas, 12);
  EXPECT_EQ(calc->readyPodCount, 4);
  EXPECT_EQ(calc->usage, 30000);
}

TEST(ObjectValue, FromZeroAndListErrors) {
  auto fromZero = calcObjectValueReplicas({0, 2500, 1000, kDefaultTolerance, {}, std::nullopt});
  ASSERT_TRUE(fromZero.ok());
  EXPECT_EQ(fromZero->replicas, 3);

  auto within = calcObjectValueReplicas({4, 1050, 1000, kDefaultTolerance, {}, Error::of("boom")});
  ASSERT_TRUE(within.ok());  // the pod list is not needed within tolerance
  EXPECT_EQ(within->replicas, 4);

  auto failed = calcObjectValueReplicas({4, 3000, 1000, kDefaultTolerance, {}, Error::of("boom")});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(
      failed.error().message,
      "unable to calculate ready pods: unable to get pods while calculating replica count: boom");
  auto empty = calcObjectValueReplicas({4, 3000, 1000, kDefaultTolerance, {}, std::nullopt});
  EXPECT_EQ(empty.error().message,
            "unable to calculate ready pods: no pods returned by selector while calculating "
            "replica count");
}

TEST(ObjectPerPod, DividesByTheTargetPerPod) {
  // docs/behavior.md, section 5, worked example 4.
  auto calc = calcObjectPerPodReplicas({5, 4000, 500, kDefaultTolerance});
  ASSERT_TRUE(calc.ok());
  EXPECT_EQ(calc->replicas, 8);
  EXPECT_EQ(calc->usage, 800);
  // Zero status replicas: the ratio is infinite, the proposal still ceil(usage / target).
  auto zero = calcObjectPerPodReplicas({0, 4000, 500, kDefaultTolerance});
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->replicas, 8);
}

TEST(External, SumsSeriesAndSaturates) {
  Scenario s;
  for (auto n : {"a", "b", "c", "d"}) s.pod(PodBuilder(n), std::nullopt);
  auto value = calcExternalValueReplicas(
      {4, {10000, 20000}, 10000, kDefaultTolerance, s.pointers(), std::nullopt});
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value->replicas, 12);
  EXPECT_EQ(value->usage, 30000);

  const auto max = std::numeric_limits<std::int64_t>::max();
  auto perPod = calcExternalPerPodReplicas({2, {max, max}, 1000, kDefaultTolerance});
  ASSERT_TRUE(perPod.ok());
  EXPECT_EQ(perPod->usage, max);
  EXPECT_EQ(perPod->replicas, std::numeric_limits<std::int32_t>::max());

  auto within = calcExternalPerPodReplicas({3, {2900}, 1000, kDefaultTolerance});
  ASSERT_TRUE(within.ok());
  EXPECT_EQ(within->replicas, 3);
  EXPECT_EQ(within->usage, 967);  // ceil(2900 / 3)
}

// A rollout's surge: spec 20, status 21, 2000 over 21 pods at 100 per pod is within the
// tolerance. Upstream keeps status's 21 (kubernetes#138505); Spec keeps 20 (kubernetes#141134).
// The ratio is status's either way, so outside the tolerance nothing changes.
TEST(ReplicaCalculator, PerPodTargetsKeepStatusOrSpecWithinTheTolerance) {
  ExternalPerPodInput external{21, {2'000'000}, 100'000, kDefaultTolerance};
  external.specReplicas = 20;
  EXPECT_EQ(calcExternalPerPodReplicas(external)->replicas, 21);
  external.keep = WithinToleranceKeep::Spec;
  auto kept = calcExternalPerPodReplicas(external);
  EXPECT_EQ(kept->replicas, 20);
  EXPECT_TRUE(kept->withinTolerance);
  EXPECT_NEAR(kept->usageRatio, 2000.0 / 2100.0, 1e-12);
  EXPECT_EQ(kept->usage, 95'239);  // ceil(2000000 / 21)
  external.values = {2'400'000};   // 2400 / 2100 = 1.14: outside
  EXPECT_EQ(calcExternalPerPodReplicas(external)->replicas, 24);

  ObjectPerPodInput object{
      22, 2'000'000, 100'000, kDefaultTolerance, 20, WithinToleranceKeep::Spec};
  EXPECT_EQ(calcObjectPerPodReplicas(object)->replicas, 20);  // 2000 / 2200 = 0.909: within
  object.keep = WithinToleranceKeep::Status;
  EXPECT_EQ(calcObjectPerPodReplicas(object)->replicas, 22);
}

TEST(Tolerances, PerDirectionOverridesFromBehavior) {
  api::HorizontalPodAutoscalerSpec spec;
  EXPECT_DOUBLE_EQ(tolerancesFor(spec, 0.1).scaleUp, 0.1);
  spec.behavior.emplace();
  spec.behavior->scaleDown.emplace();
  spec.behavior->scaleDown->tolerance = *api::Quantity::parse("50m");
  auto t = tolerancesFor(spec, 0.1);
  EXPECT_DOUBLE_EQ(t.scaleDown, 0.05);
  EXPECT_DOUBLE_EQ(t.scaleUp, 0.1);
  EXPECT_TRUE(t.isWithin(0.95));
  EXPECT_FALSE(t.isWithin(0.94));
  EXPECT_TRUE(t.isWithin(1.1));
  EXPECT_FALSE(t.isWithin(std::nan("")));
}

TEST(CeilToInt32, Saturates) {
  EXPECT_EQ(ceilToInt32(1e12), std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(ceilToInt32(std::numeric_limits<double>::infinity()),
            std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(ceilToInt32(std::nan("")), 0);
  EXPECT_EQ(ceilToInt32(2.0000001), 3);
}

}  // namespace
}  // namespace hpa::replicacalc
