#include "replay/replay.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "api/codec.h"
#include "common/yaml_json.h"
#include "replay/overrides.h"
#include "replay/simulated_metrics.h"
#include "replay/simulated_workload.h"

namespace hpa::replay {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;

api::HorizontalPodAutoscaler hpaFromYaml(const std::string& yaml) {
  auto docs = yamlDocumentsToJson(yaml);
  EXPECT_TRUE(docs.ok());
  auto hpa = api::decodeHorizontalPodAutoscaler(docs->front());
  EXPECT_TRUE(hpa.ok()) << hpa.error().message;
  return *hpa;
}

// An HPA on Deployment web: cpu at 50 % of a 100m request unless `metrics` says otherwise.
api::HorizontalPodAutoscaler webHpa(
    int minReplicas, int maxReplicas, const std::string& behavior = "",
    const std::string& metrics =
        "  - type: Resource\n"
        "    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}\n") {
  return hpaFromYaml(
      fmt::format("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n"
                  "metadata: {{name: web, namespace: demo}}\n"
                  "spec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n"
                  "  minReplicas: {}\n  maxReplicas: {}\n  metrics:\n{}{}",
                  minReplicas, maxReplicas, metrics, behavior));
}

constexpr const char* kRpsMetric =
    "  - type: Pods\n"
    "    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: 10}}\n";

ReplayTarget webTarget(std::int32_t replicas) {
  ReplayTarget t;
  t.kind = "Deployment";
  t.scale.metadata.name = "web";
  t.scale.metadata.namespace_ = "demo";
  t.scale.specReplicas = replicas;
  t.scale.selector = "app=web";
  t.podTemplate.labels = api::Labels{{"app", "web"}};
  t.podTemplate.containers.push_back({"app", {{"cpu", 100}}, false});
  return t;
}

// A trace of one metric: (offset seconds, milli) steps.
Trace trace(const std::string& metric, SeriesKind kind,
            std::initializer_list<std::pair<int, std::int64_t>> steps) {
  Series s{metric, kind, {}, "test.csv"};
  for (auto [at, milli] : steps) s.samples.push_back({seconds(at), milli});
  Trace t;
  t.series.push_back(std::move(s));
  return t;
}

ReplayOptions options(Duration sync = seconds(15)) {
  ReplayOptions o;
  o.controller.syncPeriod = sync;
  o.readinessDelay = seconds(0);
  return o;
}

std::vector<std::tuple<int, int, int>> changes(const ReplayRun& run) {
  std::vector<std::tuple<int, int, int>> out;
  for (const auto& c : run.changes) {
    out.emplace_back(static_cast<int>(std::chrono::duration_cast<seconds>(c.at).count()), c.from,
                     c.to);
  }
  return out;
}

ReplayRun mustReplay(const api::HorizontalPodAutoscaler& hpa, const ReplayTarget& target,
                     const Trace& t, const ReplayOptions& o) {
  auto run = replay(hpa, target, t, o);
  EXPECT_TRUE(run.ok()) << run.error().message;
  return run.ok() ? *run : ReplayRun{};
}

// --- the simulated workload

TEST(SimulatedWorkload, NewPodsTurnReadyAfterTheDelayAndScaleDownTakesUnreadyThenNewest) {
  SimulatedWorkload::Spec spec;
  spec.namespace_ = "demo";
  spec.podNamePrefix = "web";
  spec.podTemplate.labels = api::Labels{{"app", "web"}};
  spec.replicas = 2;
  spec.readinessDelay = seconds(30);
  const Time start = fromUnixSeconds(1'000'000);
  SimulatedWorkload w(spec, start);
  EXPECT_EQ(w.readyPods(), 2);
  EXPECT_EQ(w.pods()[0]->startTime, start - std::chrono::hours(1));

  w.scale(4, start + seconds(10));
  ASSERT_EQ(w.pods().size(), 4u);
  EXPECT_EQ(w.readyPods(), 2);
  const auto& fresh = *w.pods()[3];
  EXPECT_EQ(fresh.name, "web-3");
  EXPECT_EQ(fresh.phase, api::kPodRunning);
  EXPECT_EQ(fresh.startTime, start + seconds(10));
  EXPECT_EQ(fresh.ready, (api::PodReadyCondition{"False", start + seconds(10)}));
  EXPECT_EQ(fresh.labels.get("app"), "web");

  w.advance(start + seconds(39));
  EXPECT_EQ(w.readyPods(), 2);
  w.advance(start + seconds(40));
  EXPECT_EQ(w.readyPods(), 4);
  EXPECT_EQ(w.pods()[3]->ready, (api::PodReadyCondition{"True", start + seconds(40)}));

  w.scale(6, start + seconds(50));  // web-4, web-5 not Ready yet
  w.scale(3, start + seconds(55));
  std::vector<std::string> names;
  for (const auto& p : w.pods()) names.push_back(p->name);
  EXPECT_THAT(names, ElementsAre("web-0", "web-1", "web-2"));
  EXPECT_EQ(w.replicas(), 3);
}

// --- the metrics APIs the controller reads

TEST(SimulatedMetrics, TotalsSpreadOverReadyPodsPerPodValuesAsIs) {
  auto hpa = webHpa(
      1, 10, "",
      std::string("  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, "
                  "averageUtilization: 50}}\n") +
          kRpsMetric);
  Trace t = trace("cpu", SeriesKind::Total, {{0, 300}});
  t.series.push_back({"rps", SeriesKind::PerPod, {{seconds(0), 7000}}, "test.csv"});
  SimulatedWorkload::Spec spec{"demo", "web",       webTarget(2).podTemplate,
                               2,      seconds(30), std::chrono::hours(1)};
  const Time now = fromUnixSeconds(1'000'000);
  SimulatedWorkload w(spec, now);
  w.scale(3, now);  // the third is not Ready: it reports nothing
  explain::Snapshot world;
  publishMetrics(hpa, t, {seconds(5), now, seconds(30)}, w.pods(), world);
  ASSERT_EQ(world.podMetrics.size(), 2u);
  EXPECT_EQ(world.podMetrics[0].metadata.name, "web-0");
  EXPECT_EQ(world.podMetrics[0].containers[0].usage.at("cpu").milliValue(), 150);
  EXPECT_EQ(world.podMetrics[0].window, seconds(30));
  EXPECT_EQ(world.podMetrics[0].timestamp, now);
  ASSERT_EQ(world.customMetrics.size(), 2u);
  EXPECT_EQ(world.customMetrics[1].value.describedObject.name, "web-1");
  EXPECT_EQ(world.customMetrics[1].value.value.milliValue(), 7000);

  // Before a series' first sample its metric has no values.
  publishMetrics(hpa, trace("cpu", SeriesKind::Total, {{10, 300}}), {seconds(5), now, seconds(30)},
                 w.pods(), world);
  EXPECT_TRUE(world.podMetrics.empty());
}

TEST(SimulatedMetrics, EveryMetricNeedsASeriesOfAUsableKind) {
  auto hpa = webHpa(1, 10, "", kRpsMetric);
  auto missing = checkTraceCovers(hpa, trace("cpu", SeriesKind::Total, {{0, 1}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "spec.metrics[0] (Pods rps) has no series in the trace; the trace has: cpu (test.csv)");
  auto external =
      webHpa(1, 10, "",
             "  - type: External\n"
             "    external: {metric: {name: queue}, target: {type: Value, value: 10}}\n");
  auto perPod = checkTraceCovers(external, trace("queue", SeriesKind::PerPod, {{0, 1}}));
  ASSERT_FALSE(perPod.ok());
  EXPECT_EQ(perPod.error().message,
            "spec.metrics[0] (External queue) is one value for the whole workload; series queue of "
            "test.csv is per-pod");
}

// --- upstream's cases, replayed

// Without behavior, a scale-down waits until every recommendation of the last window
// (--horizontal-pod-autoscaler-downscale-stabilization) asks for it.
TEST(ReplayUpstreamCases, DownscaleStabilizationHoldsTheHighestRecommendationForTheWindow) {
  auto o = options();
  o.controller.downscaleStabilizationWindow = seconds(60);
  // 4 pods at exactly 50 % until 30 s, then 40m in all (10 %): a proposal of 1.
  auto run = mustReplay(webHpa(1, 10), webTarget(4),
                        trace("cpu", SeriesKind::Total, {{0, 200}, {30, 40}, {120, 40}}), o);
  // Syncs come 15 s plus the reconcile's duration apart, so the recommendation of the sync at
  // 15 s is out of the 60 s window 4 syncs later (75 s and a little): the scale-down.
  EXPECT_THAT(changes(run), ElementsAre(std::tuple{75, 4, 1}));
  for (const auto& t : run.ticks) {
    if (t.at < seconds(30)) continue;
    EXPECT_EQ(t.proposed, 1) << "at " << t.at.count();
    EXPECT_EQ(t.stabilized, t.at < seconds(75) ? 4 : 1) << "at " << t.at.count();
    if (t.at < seconds(75)) {
      EXPECT_EQ(t.stabilizedReason, "ScaleDownStabilized") << "at " << t.at.count();
    }
  }

  // With syncs exactly a period apart (no reconcile time) the recommendation exactly one window
  // old still counts, as upstream's stabilization keeps all but those before the cutoff.
  o.reconcileDuration = seconds(0);
  auto exact = mustReplay(webHpa(1, 10), webTarget(4),
                          trace("cpu", SeriesKind::Total, {{0, 200}, {30, 40}, {120, 40}}), o);
  EXPECT_THAT(changes(exact), ElementsAre(std::tuple{90, 4, 1}));
  EXPECT_EQ(run.peakReplicas, 4);
  EXPECT_EQ(run.finalReplicas, 1);
}

// The run's figures: two pods at 100m each against a 50m target from 60 s on, the two more they
// call for Ready two minutes after the scale-up, so the two pods run above target for those two
// minutes; the replicas cost throughout.
TEST(Replay, MeasuresPodMinutesAboveTargetAndReplicaHours) {
  auto o = options();
  o.readinessDelay = seconds(120);
  auto run = mustReplay(webHpa(1, 10), webTarget(2),
                        trace("cpu", SeriesKind::Total, {{0, 100}, {60, 200}, {600, 200}}), o);
  EXPECT_THAT(changes(run), ElementsAre(std::tuple{60, 2, 4}));
  EXPECT_TRUE(run.provisioning.perPodTarget);
  EXPECT_NEAR(run.provisioning.podMinutesAboveTarget, 2 * 2.0, 2 * 0.5);
  // 2 replicas for a minute, then 4 until the last sync (about 10 minutes in all).
  const double minutes = std::chrono::duration<double>(run.ticks.back().at).count() / 60;
  EXPECT_NEAR(run.provisioning.replicaHours, (2 * 1 + 4 * (minutes - 1)) / 60, 0.01);
}

// A daily cycle, one sample a minute, until `endMinute`; from `cut` on, `after` gives the values.
Trace dailyTrace(int cutMinute, int endMinute, std::int64_t after) {
  Series s{"cpu", SeriesKind::Total, {}, "generated"};
  for (int m = 0; m <= endMinute; ++m) {
    const double phase = 2 * 3.14159265358979 * (m % (24 * 60)) / (24 * 60);
    auto milli = static_cast<std::int64_t>(300 + 200 * std::sin(phase));
    s.samples.push_back({std::chrono::minutes(m), m >= cutMinute ? after : milli});
  }
  Trace t;
  t.series.push_back(std::move(s));
  return t;
}

// A replay's forecast sees the trace's past only: two traces alike until an instant make the same
// forecasts and decisions until then, whatever follows. A sync a minute keeps the replays short
// (a daily cycle forecasts from its third day only).
TEST(Replay, ForecastsFromThePastOnly) {
  auto hpa = webHpa(1, 20);
  hpa.metadata.annotations["hpa-controller.io/forecast"] = "{mode: Active}";
  const int cut = 2 * 24 * 60 + 6 * 60;  // the third day, 06:00
  const int end = cut + 2 * 60;
  // Pods take two minutes to turn Ready: the lead the control computes (that, a sync, the metrics'
  // 30 s and the forecast's 5-minute step) counts that start-up, read
  // from the simulated pods' creation and Ready times as from a cluster's.
  ReplayOptions slowStart = options(seconds(60));
  slowStart.readinessDelay = std::chrono::minutes(2);
  auto a = mustReplay(hpa, webTarget(6), dailyTrace(cut, end, 50), slowStart);
  auto b = mustReplay(hpa, webTarget(6), dailyTrace(cut, end, 900), slowStart);
  ASSERT_EQ(a.ticks.size(), b.ticks.size());
  int forecasts = 0;
  for (size_t i = 0; i < a.ticks.size() && a.ticks[i].at < std::chrono::minutes(cut); ++i) {
    ASSERT_EQ(a.ticks[i].forecast.has_value(), b.ticks[i].forecast.has_value()) << i;
    if (a.ticks[i].forecast) {
      ++forecasts;
      EXPECT_EQ(a.ticks[i].forecast->lead, std::chrono::seconds(120 + 60 + 30 + 300)) << i;
      EXPECT_EQ(a.ticks[i].forecast->value, b.ticks[i].forecast->value) << i;
      EXPECT_EQ(a.ticks[i].forecast->floor, b.ticks[i].forecast->floor) << i;
    }
    EXPECT_EQ(a.ticks[i].desiredReplicas, b.ticks[i].desiredReplicas) << i;
  }
  EXPECT_GT(forecasts, 100) << "a daily cycle forecasts from its third day";
  EXPECT_NE(a.ticks.back().forecast->value, b.ticks.back().forecast->value)
      << "the traces' futures differ: later forecasts tell them apart";
}

// hpa-controller.io/requests-source: Limits is the controller's own rule in a replay too: two
// pods asking 100m of cpu, limited to 400m, using 400m in all. Against requests 200 % (ratio 4:
// 8, limited to max(2 x 2, 4) = 4 at once); against limits 200m of 400m = 50 %, on target.
TEST(ReplayControls, UtilizationAgainstLimits) {
  ReplayTarget target = webTarget(2);
  target.podTemplate.containers[0].requests.setLimit("cpu", 400);
  const Trace t = trace("cpu", SeriesKind::Total, {{0, 400}, {60, 400}});
  auto spec = mustReplay(webHpa(1, 10), target, t, options());
  ASSERT_FALSE(spec.changes.empty());
  EXPECT_EQ(changes(spec).front(), (std::tuple{0, 2, 4}));
  EXPECT_EQ(spec.ticks[0].proposed, 8);

  auto hpa = webHpa(1, 10);
  hpa.metadata.annotations["hpa-controller.io/requests-source"] = "Limits";
  auto limits = mustReplay(hpa, target, t, options());
  EXPECT_THAT(changes(limits), ::testing::IsEmpty());
  ASSERT_FALSE(limits.ticks.empty());
  for (const auto& tick : limits.ticks) EXPECT_EQ(tick.proposed, 2) << "at " << tick.at.count();
}

// A Pods policy lets at most `value` pods be added per period, counted over the period.
TEST(ReplayUpstreamCases, PodsPolicyCapsEachStep) {
  auto hpa = webHpa(2, 10,
                    "  behavior:\n    scaleUp:\n      stabilizationWindowSeconds: 0\n"
                    "      policies: [{type: Pods, value: 2, periodSeconds: 60}]\n",
                    kRpsMetric);
  auto run = mustReplay(hpa, webTarget(2),
                        trace("rps", SeriesKind::Total, {{0, 1000000}, {240, 1000000}}), options());
  EXPECT_THAT(changes(run), ElementsAre(std::tuple{0, 2, 4}, std::tuple{60, 4, 6},
                                        std::tuple{120, 6, 8}, std::tuple{180, 8, 10}));
  EXPECT_EQ(run.ticks[1].proposed, 100);
  EXPECT_EQ(run.ticks[1].desiredReplicas, 4);
  EXPECT_EQ(run.ticks[1].limitedReason, "ScaleUpLimit");
}

TEST(ReplayUpstreamCases, PercentPolicyDoublesPerPeriod) {
  auto hpa = webHpa(1, 10,
                    "  behavior:\n    scaleUp:\n      policies: [{type: Percent, value: 100, "
                    "periodSeconds: 15}]\n",
                    kRpsMetric);
  auto run = mustReplay(hpa, webTarget(1),
                        trace("rps", SeriesKind::Total, {{0, 1000000}, {90, 1000000}}), options());
  EXPECT_THAT(changes(run), ElementsAre(std::tuple{0, 1, 2}, std::tuple{15, 2, 4},
                                        std::tuple{30, 4, 8}, std::tuple{45, 8, 10}));
}

struct SelectPolicyCase {
  const char* select;
  std::vector<std::tuple<int, int, int>> changes;
};

// Prints the case by its name (gtest would dump the struct's bytes).
void PrintTo(const SelectPolicyCase& c, std::ostream* os) { *os << c.select; }

class ReplaySelectPolicy : public ::testing::TestWithParam<SelectPolicyCase> {};

// Two policies, {Pods 4, Percent 100} per 15 s: Max takes the larger step, Min the smaller,
// Disabled none.
TEST_P(ReplaySelectPolicy, PicksTheStep) {
  auto hpa = webHpa(2, 10,
                    fmt::format("  behavior:\n    scaleUp:\n      selectPolicy: {}\n"
                                "      policies: [{{type: Pods, value: 4, periodSeconds: 15}}, "
                                "{{type: Percent, value: 100, periodSeconds: 15}}]\n",
                                GetParam().select),
                    kRpsMetric);
  auto run = mustReplay(hpa, webTarget(2),
                        trace("rps", SeriesKind::Total, {{0, 1000000}, {60, 1000000}}), options());
  EXPECT_EQ(changes(run), GetParam().changes);
}

INSTANTIATE_TEST_SUITE_P(Cases, ReplaySelectPolicy,
                         ::testing::Values(SelectPolicyCase{"Max", {{0, 2, 6}, {15, 6, 10}}},
                                           SelectPolicyCase{"Min",
                                                            {{0, 2, 4}, {15, 4, 8}, {30, 8, 10}}},
                                           SelectPolicyCase{"Disabled", {}}),
                         [](const auto& info) { return std::string(info.param.select); });

// 54 % against a 50 % target is a ratio of 1.08: inside the default tolerance of 0.1, outside
// 0.05, whether from the flag or from the HPA's own behavior tolerance.
TEST(ReplayUpstreamCases, Tolerance) {
  const Trace t = trace("cpu", SeriesKind::Total, {{0, 216}, {60, 216}});
  auto o = options();
  EXPECT_TRUE(mustReplay(webHpa(1, 10), webTarget(4), t, o).changes.empty());

  RunSettings flag{webHpa(1, 10), options()};
  ASSERT_TRUE(
      applyOverrides(flag, {*parseOverride("horizontal-pod-autoscaler-tolerance=0.05")}).ok());
  EXPECT_THAT(changes(mustReplay(flag.hpa, webTarget(4), t, flag.options)),
              ElementsAre(std::tuple{0, 4, 5}));

  RunSettings perHpa{webHpa(1, 10), options()};
  auto s = applyOverrides(perHpa, {*parseOverride("behavior.scaleUp.tolerance=0.05")});
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_THAT(changes(mustReplay(perHpa.hpa, webTarget(4), t, perHpa.options)),
              ElementsAre(std::tuple{0, 4, 5}));
}

// New pods' cpu counts only from their Ready time plus the metric window (cpu initialization):
// until then a scale-up treats them as using nothing.
TEST(ReplayUpstreamCases, NewPodsCpuCountsOnlyAfterReadinessAndAWindow) {
  auto o = options(seconds(5));
  o.readinessDelay = seconds(10);
  o.metricWindow = seconds(30);
  o.controller.downscaleStabilizationWindow = seconds(300);
  // 2 pods at 150 % ask for 6, the limit without behavior (twice the replicas, at least 4)
  // allows 4; 5 s later the 2 new pods, not Ready, are assumed at 0 %: 75 %, 6 pods.
  auto run = mustReplay(webHpa(2, 10), webTarget(2),
                        trace("cpu", SeriesKind::Total, {{0, 300}, {20, 800}, {90, 800}}), o);
  // From 20 s, 800m over 6 pods is 133 % each, but the new pods' cpu counts only from their
  // Ready time plus the window (40 s and 45 s): the 2 old pods at 133 % and 4 new ones assumed
  // at 0 % average 44 %, no scale-up; at 40 s, 4 pods at 133 % and 2 at 0 % ask for 11.
  EXPECT_THAT(changes(run),
              ElementsAre(std::tuple{0, 2, 4}, std::tuple{5, 4, 6}, std::tuple{40, 6, 10}));
  for (const auto& t : run.ticks) {
    if (t.at >= seconds(20) && t.at < seconds(40)) {
      EXPECT_EQ(t.metrics[0].utilization, 133) << "at " << t.at.count();
    }
  }
}

// The per-HPA controls act in a replay as in the daemon: the HPA's own sync period spaces its
// syncs, a paused HPA decides but never scales.
TEST(Replay, HonoursTheHpasControls) {
  auto hpa = webHpa(1, 10);
  hpa.metadata.annotations["hpa-controller.io/sync-period"] = "30s";
  auto run = mustReplay(hpa, webTarget(2), trace("cpu", SeriesKind::Total, {{0, 300}, {90, 300}}),
                        options());
  ASSERT_EQ(run.ticks.size(), 4u);
  EXPECT_EQ(run.ticks[1].at, seconds(30) + options().reconcileDuration);
  EXPECT_EQ(run.ticks[3].at, 3 * (seconds(30) + options().reconcileDuration));

  auto paused = webHpa(1, 10);
  paused.metadata.annotations["hpa-controller.io/paused"] = "true";
  auto held = mustReplay(paused, webTarget(2),
                         trace("cpu", SeriesKind::Total, {{0, 300}, {60, 300}}), options());
  EXPECT_TRUE(held.changes.empty());
  EXPECT_EQ(held.finalReplicas, 2);
  EXPECT_EQ(held.ticks[0].desiredReplicas, 4);
  EXPECT_EQ(held.ticks[0].events.front().reason, "ScalingPaused");
}

TEST(Replay, ReplaysASchedulesWindowsAtTheTracesOwnTimes) {
  auto hpa = webHpa(1, 10);
  hpa.metadata.annotations["hpa-controller.io/schedule"] =
      "[{name: morning, start: '0 8 * * *', duration: 10m, minReplicas: 5}]";
  // 100m of cpu in total: 2 pods at 50 %, the target.
  auto t = trace("cpu", SeriesKind::Total, {{0, 100}, {1500, 100}});
  t.origin = *parseRFC3339("2026-11-23T07:55:00Z");
  auto run = mustReplay(hpa, webTarget(2), t, options());
  // Opens at 08:00 (300 s): up to the floor at the first sync after it; closes at 08:10 (900 s),
  // and the downscale stabilization window lets go 5 minutes after the last sync inside it.
  ASSERT_EQ(run.changes.size(), 2u);
  EXPECT_EQ(run.changes[0].from, 2);
  EXPECT_EQ(run.changes[0].to, 5);
  EXPECT_GE(run.changes[0].at, seconds(300));
  EXPECT_LT(run.changes[0].at, seconds(320));
  EXPECT_EQ(run.changes[1].from, 5);
  EXPECT_EQ(run.changes[1].to, 2);
  EXPECT_GE(run.changes[1].at, seconds(900 - 16 + 300));
  EXPECT_LT(run.changes[1].at, seconds(900 + 300));
  int held = 0;
  for (const auto& tick : run.ticks) held += tick.limitedReason == "ScheduledMinReplicas";
  EXPECT_GT(held, 30) << "the window's floor held through its 10 minutes";
}

TEST(Replay, RejectsATargetThatIsNotTheHpasAndAZeroSyncPeriod) {
  auto target = webTarget(2);
  target.scale.metadata.name = "api";
  auto run = replay(webHpa(1, 10), target, trace("cpu", SeriesKind::Total, {{0, 1}}), options());
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().message,
            "the target Deployment api is not the HPA's scaleTargetRef (Deployment web)");
  EXPECT_FALSE(replay(webHpa(1, 10), webTarget(2), trace("cpu", SeriesKind::Total, {{0, 1}}),
                      options(seconds(0)))
                   .ok());
}

// A built-in workload is its group and kind: a custom resource that happens to be called
// Deployment is scaled through its Scale, as any custom resource is.
TEST(Replay, ACustomResourceOfABuiltinKindsNameIsScaledThroughItsScale) {
  auto hpa = webHpa(1, 10);
  hpa.spec.scaleTargetRef.apiVersion = "example.com/v1";
  auto run = mustReplay(hpa, webTarget(2), trace("cpu", SeriesKind::Total, {{0, 300}, {15, 300}}),
                        options());
  ASSERT_EQ(run.ticks.size(), 2u);
  EXPECT_EQ(run.ticks[0].branch, "metrics") << run.ticks[0].error;
  EXPECT_EQ(run.ticks[0].replicas, 4);
}

TEST(Replay, TicksCarryWhatTheControllerSawAndTheEvents) {
  auto run = mustReplay(webHpa(1, 10), webTarget(2),
                        trace("cpu", SeriesKind::Total, {{0, 300}, {15, 300}}), options());
  ASSERT_EQ(run.ticks.size(), 2u);
  const Tick& t = run.ticks[0];
  EXPECT_EQ(t.at, seconds(0));
  ASSERT_EQ(t.metrics.size(), 1u);
  EXPECT_EQ(t.metrics[0].name, "cpu");
  EXPECT_EQ(t.metrics[0].value, 300);
  EXPECT_EQ(t.metrics[0].utilization, 150);
  EXPECT_EQ(t.metrics[0].proposal, 6);
  EXPECT_EQ(t.currentReplicas, 2);
  EXPECT_EQ(t.proposed, 6);
  EXPECT_EQ(t.desiredReplicas, 4);  // without behavior: at most twice the replicas (at least 4)
  EXPECT_EQ(t.limitedReason, "ScaleUpLimit");
  EXPECT_EQ(t.replicas, 4);
  EXPECT_EQ(t.pods, 4);
  EXPECT_EQ(t.readyPods, 2);
  EXPECT_EQ(t.branch, "metrics");
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].reason, "SuccessfulRescale");
  EXPECT_EQ(t.events[0].message,
            "New size: 4; reason: cpu resource utilization (percentage of request) above target");
  EXPECT_EQ(run.changes.front().message, t.events[0].message);
  // The status written in one sync is what the next reads.
  EXPECT_EQ(run.ticks[1].currentReplicas, 4);
}

}  // namespace
}  // namespace hpa::replay
