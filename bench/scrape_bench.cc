// /metrics at scale: the text a scrape of the controller returns with N HPAs, each with every
// per-HPA series the daemon keeps (kube-controller-manager's desired replicas, reconciles, and
// the decision metrics of telemetry::DecisionMetrics), plus the fixed families. Namespaces of 17
// characters and HPA names of 23, as long as a real cluster's. Measures the
// render time (Collect and the text serializer, what the /metrics handler runs) and reports the
// body's size; BM_ScrapeGzipped adds the gzip a Prometheus scrape asks for, and reports the size
// sent.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "serving/gzip.h"
#include "telemetry/prometheus_observer.h"

namespace {

using hpa::report::DecisionLimit;
using hpa::report::DecisionOutcome;

// 100 namespaces; every limit word, some HPAs not ScalingActive.
void fill(hpa::telemetry::PrometheusObserver& observer, int hpas, bool decisions) {
  const hpa::Time readAt(std::chrono::seconds(1'764'300'000));
  for (int i = 0; i < hpas; ++i) {
    const std::string ns = fmt::format("team-payments-{:03}", i % 100);
    const std::string name = fmt::format("checkout-frontend-{:05}", i);
    DecisionOutcome o;
    o.currentReplicas = 3 + i % 40;
    o.desiredReplicas = o.currentReplicas + i % 3;
    o.proposedReplicas = o.desiredReplicas + i % 5;
    o.limitedBy = static_cast<DecisionLimit>(i % hpa::report::kDecisionLimitCount);
    o.scalingActive = i % 50 != 0;
    o.metricsReadAt = readAt + std::chrono::milliseconds(i);
    observer.hpaReconciled(ns, name);
    observer.desiredReplicas(ns, name, o.desiredReplicas);
    if (decisions) observer.hpaDecided(ns, name, o);
  }
  observer.reconciliation("none", "none", std::chrono::milliseconds(2));
  observer.apiRequest("metrics", "GET", 200, std::chrono::milliseconds(4));
  observer.informerCache("pods", 100 * static_cast<std::size_t>(hpas), 12345);
}

void BM_Scrape(benchmark::State& state) {
  hpa::telemetry::PrometheusObserver observer;
  fill(observer, static_cast<int>(state.range(0)), state.range(1) != 0);
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string body = observer.serialize();
    bytes = body.size();
    benchmark::DoNotOptimize(body);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["bytes/HPA"] = static_cast<double>(bytes) / static_cast<double>(state.range(0));
}
void BM_ScrapeGzipped(benchmark::State& state) {
  hpa::telemetry::PrometheusObserver observer;
  fill(observer, static_cast<int>(state.range(0)), true);
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto body = hpa::serving::gzipCompress(observer.serialize());
    bytes = body ? body->size() : 0;
    benchmark::DoNotOptimize(body);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["bytes/HPA"] = static_cast<double>(bytes) / static_cast<double>(state.range(0));
}
BENCHMARK(BM_ScrapeGzipped)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->ArgName("hpas")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// decisions:0 leaves the decision metrics out: what they add.
BENCHMARK(BM_Scrape)
    ->ArgsProduct({{100, 1000, 10000}, {0, 1}})
    ->ArgNames({"hpas", "decisions"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
