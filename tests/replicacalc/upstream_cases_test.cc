// The cases of upstream's replica_calculator_test.go, re-expressed with one container per pod
// (upstream doubles both usage and requests with two containers; utilization is the same and
// the per-pod value below is upstream's expected value per container).
#include <gtest/gtest.h>

#include "fakes/pod_builder.h"
#include "replicacalc/replica_calculator.h"

namespace hpa::replicacalc {
namespace {

using hpa::testing::PodBuilder;
using std::chrono::minutes;
using std::chrono::seconds;

const Time kStart = Time(seconds(1'700'000'000));
const Time kNow = kStart + minutes(10);
const Tolerances kTolerance{0.1, 0.1};

enum class Kind { Ready, Unready, Failed, Deleting, HotCpu };

struct UtilizationCase {
  const char* name;
  std::int32_t current;
  std::vector<Kind> pods;
  std::vector<std::int64_t> requests;  // per pod, milli
  std::vector<std::int64_t> levels;    // samples for the first pods (more than pods: unlisted)
  std::int32_t target;
  std::int32_t expectedReplicas;
  std::int32_t expectedUtilization;
  std::int64_t expectedValue;
};

// Prints the case by its name (gtest would dump the struct's bytes).
void PrintTo(const UtilizationCase& c, std::ostream* os) { *os << c.name; }

class UpstreamUtilization : public ::testing::TestWithParam<UtilizationCase> {};

TEST_P(UpstreamUtilization, MatchesUpstream) {
  const auto& c = GetParam();
  std::vector<api::Pod> pods;
  PodMetricsInfo metrics;
  for (size_t i = 0; i < c.pods.size(); ++i) {
    PodBuilder b("pod-" + std::to_string(i));
    b.startTime(kStart).ready("True", kStart + seconds(5));
    switch (c.pods[i]) {
      case Kind::Unready:
        b.ready("False", kStart);
        break;
      case Kind::Failed:
        b.phase("Failed").ready("False", kStart);
        break;
      case Kind::Deleting:
        b.deleting(kNow).ready("False", kStart);
        break;
      case Kind::HotCpu:
        b.startTime(kNow - minutes(1)).ready("True", kNow - seconds(10));
        break;
      case Kind::Ready:
        break;
    }
    b.container("app", c.requests[i]);
    pods.push_back(b.build());
  }
  for (size_t i = 0; i < c.levels.size(); ++i) {
    metrics["pod-" + std::to_string(i)] = PodMetric{c.levels[i], kNow - seconds(5), seconds(30)};
  }
  std::vector<const api::Pod*> ptrs;
  for (const auto& p : pods) ptrs.push_back(&p);
  auto calc = calcResourceUtilizationReplicas({c.current, c.target, "cpu", "", kTolerance, ptrs,
                                               metrics, kNow, kNow,
                                               CalculatorOptions{minutes(5), seconds(30), true}});
  ASSERT_TRUE(calc.ok()) << calc.error().message;
  EXPECT_EQ(calc->replicas, c.expectedReplicas);
  EXPECT_EQ(calc->utilization, c.expectedUtilization);
  EXPECT_EQ(calc->usage, c.expectedValue);
}

using K = Kind;
INSTANTIATE_TEST_SUITE_P(
    ReplicaCalc, UpstreamUtilization,
    ::testing::Values(UtilizationCase{"ScaleUp",
                                      3,
                                      {K::Ready, K::Ready, K::Ready},
                                      {1000, 1000, 1000},
                                      {300, 500, 700},
                                      30,
                                      5,
                                      50,
                                      500},
                      UtilizationCase{"ScaleUpUnreadyLessScale",
                                      3,
                                      {K::Unready, K::Ready, K::Ready},
                                      {1000, 1000, 1000},
                                      {300, 500, 700},
                                      30,
                                      4,
                                      60,
                                      600},
                      UtilizationCase{"ScaleUpHotCpuLessScale",
                                      3,
                                      {K::HotCpu, K::Ready, K::Ready},
                                      {1000, 1000, 1000},
                                      {300, 500, 700},
                                      30,
                                      4,
                                      60,
                                      600},
                      UtilizationCase{"ScaleUpUnreadyNoScale",
                                      3,
                                      {K::Ready, K::Unready, K::Unready},
                                      {1000, 1000, 1000},
                                      {400, 500, 700},
                                      30,
                                      3,
                                      40,
                                      400},
                      UtilizationCase{"ScaleUpIgnoresFailedPods",
                                      2,
                                      {K::Ready, K::Ready, K::Failed, K::Failed},
                                      {1000, 1000, 1000, 1000},
                                      {500, 700},
                                      30,
                                      4,
                                      60,
                                      600},
                      UtilizationCase{"ScaleUpIgnoresDeletionPods",
                                      2,
                                      {K::Ready, K::Ready, K::Deleting, K::Deleting},
                                      {1000, 1000, 1000, 1000},
                                      {500, 700},
                                      30,
                                      4,
                                      60,
                                      600},
                      UtilizationCase{"ScaleDown",
                                      5,
                                      {K::Ready, K::Ready, K::Ready, K::Ready, K::Ready},
                                      {1000, 1000, 1000, 1000, 1000},
                                      {100, 300, 500, 250, 250},
                                      50,
                                      3,
                                      28,
                                      280},
                      UtilizationCase{"ScaleDownIgnoresUnreadyPods",
                                      5,
                                      {K::Ready, K::Ready, K::Ready, K::Unready, K::Unready},
                                      {1000, 1000, 1000, 1000, 1000},
                                      {100, 300, 500, 250, 250},
                                      50,
                                      2,
                                      30,
                                      300},
                      UtilizationCase{"ScaleDownIgnoresHotCpuPods",
                                      5,
                                      {K::Ready, K::Ready, K::Ready, K::HotCpu, K::HotCpu},
                                      {1000, 1000, 1000, 1000, 1000},
                                      {100, 300, 500, 250, 250},
                                      50,
                                      2,
                                      30,
                                      300},
                      UtilizationCase{
                          "ScaleDownIgnoresFailedPods",
                          5,
                          {K::Ready, K::Ready, K::Ready, K::Ready, K::Ready, K::Failed, K::Failed},
                          {1000, 1000, 1000, 1000, 1000, 1000, 1000},
                          {100, 300, 500, 250, 250},
                          50,
                          3,
                          28,
                          280},
                      UtilizationCase{"ScaleDownIgnoresDeletionPods",
                                      5,
                                      {K::Ready, K::Ready, K::Ready, K::Ready, K::Ready,
                                       K::Deleting, K::Deleting},
                                      {1000, 1000, 1000, 1000, 1000, 1000, 1000},
                                      {100, 300, 500, 250, 250},
                                      50,
                                      3,
                                      28,
                                      280},
                      UtilizationCase{"Tolerance",
                                      3,
                                      {K::Ready, K::Ready, K::Ready},
                                      {900, 1000, 1100},
                                      {1010, 1030, 1020},
                                      100,
                                      3,
                                      102,
                                      1020},
                      UtilizationCase{"SuperfluousMetrics",
                                      4,
                                      {K::Ready, K::Ready, K::Ready, K::Ready},
                                      {1000, 1000, 1000, 1000},
                                      {4000, 9500, 3000, 7000, 3200, 2000},
                                      100,
                                      24,
                                      587,
                                      5875},
                      UtilizationCase{"MissingMetrics",
                                      4,
                                      {K::Ready, K::Ready, K::Ready, K::Ready},
                                      {1000, 1000, 1000, 1000},
                                      {400, 95},
                                      100,
                                      3,
                                      24,
                                      247},
                      UtilizationCase{"MissingMetricsNoChangeEq",
                                      2,
                                      {K::Ready, K::Ready},
                                      {1000, 1000},
                                      {1000},
                                      100,
                                      2,
                                      100,
                                      1000},
                      UtilizationCase{"MissingMetricsNoChangeGt",
                                      2,
                                      {K::Ready, K::Ready},
                                      {1000, 1000},
                                      {1900},
                                      100,
                                      2,
                                      190,
                                      1900},
                      UtilizationCase{"MissingMetricsNoChangeLt",
                                      2,
                                      {K::Ready, K::Ready},
                                      {1000, 1000},
                                      {600},
                                      100,
                                      2,
                                      60,
                                      600},
                      UtilizationCase{"MissingMetricsUnreadyChange",
                                      3,
                                      {K::Unready, K::Ready, K::Ready},
                                      {1000, 1000, 1000},
                                      {100, 450},
                                      50,
                                      3,
                                      45,
                                      450},
                      UtilizationCase{"MissingMetricsHotCpuNoChange",
                                      3,
                                      {K::HotCpu, K::Ready, K::Ready},
                                      {1000, 1000, 1000},
                                      {100, 450},
                                      50,
                                      3,
                                      45,
                                      450},
                      UtilizationCase{"MissingMetricsUnreadyScaleUp",
                                      3,
                                      {K::Unready, K::Ready, K::Ready},
                                      {1000, 1000, 1000},
                                      {100, 2000},
                                      50,
                                      4,
                                      200,
                                      2000},
                      UtilizationCase{"MissingMetricsUnreadyScaleDown",
                                      4,
                                      {K::Unready, K::Ready, K::Ready, K::Ready},
                                      {1000, 1000, 1000, 1000},
                                      {100, 100, 100},
                                      50,
                                      3,
                                      10,
                                      100},
                      UtilizationCase{"DuringRollingUpdateWithMaxSurge",
                                      2,
                                      {K::Ready, K::Ready, K::Ready},
                                      {1000, 1000, 1000},
                                      {100, 100},
                                      50,
                                      2,
                                      10,
                                      100}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(UpstreamReplicaCalc, PodsMetricScaleUpAndTolerance) {
  std::vector<api::Pod> pods{PodBuilder("a").build(), PodBuilder("b").build(),
                             PodBuilder("c").build()};
  std::vector<const api::Pod*> ptrs{&pods[0], &pods[1], &pods[2]};
  auto run = [&](std::vector<std::int64_t> levels, std::int64_t target) {
    PodMetricsInfo m;
    for (size_t i = 0; i < levels.size(); ++i)
      m[pods[i].name] = PodMetric{levels[i], kNow, minutes(1)};
    return calcPlainMetricReplicas({3, target, "", kTolerance, ptrs, m, kNow, kNow, {}});
  };
  auto up = run({20000, 10000, 30000}, 15000);  // TestReplicaCalcScaleUpCM
  ASSERT_TRUE(up.ok());
  EXPECT_EQ(up->replicas, 4);
  EXPECT_EQ(up->usage, 20000);
  auto tol = run({20000, 21000, 21000}, 20000);  // TestReplicaCalcToleranceCM
  ASSERT_TRUE(tol.ok());
  EXPECT_EQ(tol->replicas, 3);
  EXPECT_EQ(tol->usage, 20666);
  auto down = run({12000, 12000, 12000}, 20000);  // TestReplicaCalcScaleDownCM-like
  ASSERT_TRUE(down.ok());
  EXPECT_EQ(down->replicas, 2);  // ceil(0.6 x 3)
}

TEST(UpstreamReplicaCalc, ObjectAndExternalTolerance) {
  std::vector<api::Pod> pods{PodBuilder("a").build(), PodBuilder("b").build(),
                             PodBuilder("c").build()};
  std::vector<const api::Pod*> ptrs{&pods[0], &pods[1], &pods[2]};
  EXPECT_EQ(calcObjectValueReplicas({3, 20666, 20000, kTolerance, ptrs, std::nullopt})->replicas,
            3);                                                          // ToleranceCMObject
  auto perPod = calcObjectPerPodReplicas({4, 20166, 5000, kTolerance});  // TolerancePerPodCMObject
  EXPECT_EQ(perPod->replicas, 4);
  EXPECT_EQ(perPod->usage, 5042);
  EXPECT_EQ(calcExternalValueReplicas({3, {8600}, 8888, kTolerance, ptrs, std::nullopt})->replicas,
            3);  // ToleranceCMExternal
  auto extPerPod =
      calcExternalPerPodReplicas({3, {8600}, 2900, kTolerance});  // TolerancePerPodCMExternal
  EXPECT_EQ(extPerPod->replicas, 3);
  EXPECT_EQ(extPerPod->usage, 2867);
  // Value target: ratio 3 times the 3 Running and Ready pods (docs/behavior.md, section 5).
  auto objUp = calcObjectValueReplicas({3, 30000, 10000, kTolerance, ptrs, std::nullopt});
  EXPECT_EQ(objUp->replicas, 9);
  auto extUp =
      calcExternalPerPodReplicas({3, {8600}, 2150, kTolerance});  // ScaleUpPerPodCMExternal
  EXPECT_EQ(extUp->replicas, 4);
}

TEST(UpstreamReplicaCalc, EmptyCpuRequest) {
  api::Pod p = PodBuilder("a").containerWithoutRequests("app").build();
  PodMetricsInfo m{{"a", PodMetric{200, kNow, minutes(1)}}};
  auto r =
      calcResourceUtilizationReplicas({1, 100, "cpu", "", kTolerance, {&p}, m, kNow, kNow, {}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("missing request for", 0), 0u);
}

}  // namespace
}  // namespace hpa::replicacalc
