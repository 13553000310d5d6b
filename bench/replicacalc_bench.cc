// Replica calculator cost per pod: one Resource Utilization evaluation over N listed pods with a
// sample each (the daemon's hot path every sync period), with and without the per-pod account.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "replicacalc/normalization.h"
#include "replicacalc/replica_calculator.h"

namespace {

using namespace hpa;
using std::chrono::minutes;
using std::chrono::seconds;

const Time kStart = Time(seconds(1'700'000'000));
const Time kNow = kStart + minutes(10);

struct Fleet {
  std::vector<api::Pod> pods;
  std::vector<const api::Pod*> pointers;
  replicacalc::PodMetricsInfo metrics;
};

Fleet makeFleet(int n) {
  Fleet f;
  f.pods.reserve(n);
  for (int i = 0; i < n; ++i) {
    api::Pod p;
    p.name = "web-7d9f8b6c5d-" + std::to_string(100000 + i);
    p.namespace_ = "default";
    p.phase = api::kPodRunning;
    p.startTime = kStart;
    p.ready = api::PodReadyCondition{"True", kStart + seconds(10)};
    p.containers.push_back({"app", {{"cpu", 500}, {"memory", 256LL << 20}}, false});
    f.metrics[p.name] = replicacalc::PodMetric{300 + (i % 400), kNow - seconds(20), minutes(1)};
    f.pods.push_back(std::move(p));
  }
  for (const auto& p : f.pods) f.pointers.push_back(&p);
  return f;
}

void BM_ResourceUtilization(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const bool explain = state.range(1) != 0;
  Fleet f = makeFleet(n);
  // Built once: the metrics client hands the calculator its map, so copying it is not the
  // calculator's cost.
  const replicacalc::ResourceUtilizationInput in{
      n,         60,
      "cpu",     "",
      {},        f.pointers,
      f.metrics, kNow,
      kNow,      replicacalc::CalculatorOptions{minutes(5), seconds(30), explain}};
  for (auto _ : state) {
    auto calc = replicacalc::calcResourceUtilizationReplicas(in);
    benchmark::DoNotOptimize(calc);
  }
  state.counters["ns/pod"] =
      benchmark::Counter(static_cast<double>(n) * state.iterations(),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ResourceUtilization)
    ->ArgsProduct({{10, 1000, 100000}, {0, 1}})
    ->ArgNames({"pods", "explain"})
    ->Unit(benchmark::kMicrosecond);

void BM_NormalizeWithBehavior(benchmark::State& state) {
  api::HorizontalPodAutoscalerBehavior behavior;
  std::vector<api::TimestampedRecommendation> recs;
  for (int i = 0; i < 21; ++i) recs.push_back({10 + i % 3, kNow - seconds(15 * i)});
  std::vector<api::TimestampedScaleEvent> up{{2, kNow - seconds(5), false}};
  for (auto _ : state) {
    auto copy = recs;
    auto r = replicacalc::normalizeWithBehavior(copy, up, {}, behavior, {10, 14, 1, 100, kNow},
                                                minutes(5));
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_NormalizeWithBehavior);

}  // namespace

BENCHMARK_MAIN();
