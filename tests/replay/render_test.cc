#include "replay/render.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "replay/plot.h"

namespace hpa::replay {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

Tick tick(int at, std::int32_t replicas, std::int64_t value,
          std::vector<report::RecordedEvent> events = {}) {
  Tick t;
  t.at = seconds(at);
  t.metrics.push_back(
      {"cpu", value, 50, std::nullopt, replicas, std::nullopt, api::MetricUnit::Cores});
  t.currentReplicas = replicas;
  t.desiredReplicas = replicas;
  t.replicas = replicas;
  t.pods = replicas;
  t.readyPods = replicas;
  t.events = std::move(events);
  return t;
}

struct Fixture {
  Trace trace;
  ReplayRun a;
  ReplayRun b;
  ReplayOptions optionsA;
  ReplayOptions optionsB;
  Fixture() {
    trace.series.push_back(
        {"cpu", SeriesKind::Total, {{seconds(0), 100}, {seconds(30), 400}}, "t.csv"});
    trace.recorded.push_back({seconds(0), 2, 0});  // no desired count yet: the current one
    a.label = "a";
    a.hpaKey = "demo/web";
    a.hpa.spec.maxReplicas = 10;
    a.ticks = {tick(0, 2, 100), tick(15, 2, 100), tick(30, 2, 400),
               tick(45, 8, 400, {{"Normal", "SuccessfulRescale", "New size: 8; reason: x"}})};
    a.changes = {{seconds(45), 2, 8, "New size: 8; reason: x"}};
    a.initialReplicas = 2;
    a.peakReplicas = 8;
    a.finalReplicas = 8;
    a.provisioning = {12.5, 1.25, true};
    b = a;
    b.label = "b";
    b.description = "horizontal-pod-autoscaler-sync-period=30s";
    b.ticks = {tick(0, 2, 100),
               tick(30, 4, 400, {{"Normal", "SuccessfulRescale", "New size: 4; reason: y"}})};
    b.changes = {{seconds(30), 2, 4, "New size: 4; reason: y"}};
    b.peakReplicas = 4;
    b.finalReplicas = 4;
    b.provisioning = {5, 1.5, true};
    optionsB.controller.syncPeriod = seconds(30);
  }
};

// Runs with different sync periods: each row shows the other run as of that time, and its
// events once.
TEST(RenderText, ComparesRunsOnTheSameTimeline) {
  Fixture f;
  const std::string text = renderText({{&f.a, &f.optionsA}, {&f.b, &f.optionsB}}, f.trace);
  EXPECT_THAT(text, HasSubstr("run b (horizontal-pod-autoscaler-sync-period=30s): demo/web: min 1, "
                              "max 10; no behavior; "
                              "sync 30s (+50ms per reconcile)"));
  EXPECT_THAT(
      text,
      HasSubstr(
          "time  cpu (total)  recorded  a:desired  a:replicas  a:ready  b:desired  b:replicas  "
          "b:ready  events"));
  EXPECT_THAT(text, HasSubstr("15.0s         100m         2          2           2        2        "
                              "  2           2        2\n"));
  EXPECT_THAT(text, HasSubstr("30.0s         400m         2          2           2        2        "
                              "  4           4        4  "
                              "b: SuccessfulRescale: New size: 4; reason: y\n"));
  EXPECT_THAT(text, HasSubstr("45.0s         400m         2          8           8        8        "
                              "  4           4        4  "
                              "a: SuccessfulRescale: New size: 8; reason: x\n"));
  EXPECT_THAT(text, HasSubstr("run b (horizontal-pod-autoscaler-sync-period=30s) summary: 2 "
                              "replicas at the start, peak 4, "
                              "final 4, 1 scale event; 5.0 pod-minutes above target, 1.50 "
                              "replica-hours\n"));
  EXPECT_THAT(text, HasSubstr("run b against run a: pod-minutes above target 12.5 -> 5.0 (-60 %), "
                              "replica-hours 1.25 -> 1.50 (+20 %)\n"));
  EXPECT_THAT(text, HasSubstr("recorded: 2 replicas at the start, peak 2, final 2\n"));
}

// A run of an HPA whose controls change its decisions names them, as the reconcile applies them.
TEST(RenderText, NamesTheControlsThatChangeTheDecision) {
  Fixture f;
  f.b.hpa.metadata.annotations["hpa-controller.io/within-tolerance-keep"] = "Spec";
  f.b.hpa.metadata.annotations["hpa-controller.io/paused"] = "ScaleDown";
  const std::string text = renderText({{&f.a, &f.optionsA}, {&f.b, &f.optionsB}}, f.trace);
  EXPECT_THAT(text, HasSubstr("; controls: hpa-controller.io/paused: ScaleDown, "
                              "hpa-controller.io/within-tolerance-keep: Spec\n"));
  // Run a has none: its line ends with the rules.
  EXPECT_THAT(text, HasSubstr("run a: demo/web: min 1, max 10; no behavior; sync 15s (+50ms per "
                              "reconcile), tolerance 0.1, downscale stabilization 5m0s, readiness "
                              "delay 30s, rules 1.37\n"));
}

// A single run speaks each metric's unit (bytes as Mi, counts as counts) and says what each
// reason in parentheses means, in the words of the controller's condition.
TEST(RenderText, ShowsValuesInTheirUnitsAndExplainsTheReasons) {
  Trace trace;
  trace.series.push_back(
      {"memory", SeriesKind::PerPod, {{seconds(0), 50LL * 1024 * 1024 * 1000}}, "t.csv"});
  trace.series.push_back({"jobs", SeriesKind::PerPod, {{seconds(0), 32000}}, "t.csv"});
  ReplayRun run;
  run.label = "a";
  run.hpaKey = "demo/web";
  run.hpa.spec.maxReplicas = 4;
  Tick t;
  t.metrics.push_back({"memory", 50LL * 1024 * 1024 * 1000, std::nullopt, 50LL * 1024 * 1024 * 1000,
                       3, std::nullopt, api::MetricUnit::Bytes});
  t.metrics.push_back(
      {"jobs", 32000, std::nullopt, 32000, 7, std::nullopt, api::MetricUnit::Number});
  t.proposed = 7;
  t.currentReplicas = t.desiredReplicas = t.replicas = t.pods = t.readyPods = 4;
  t.limitedReason = "TooManyReplicas";
  t.limitedMessage = "the desired replica count is more than the maximum replica count";
  run.ticks = {t};
  ReplayOptions options;
  const std::string text = renderText({{&run, &options}}, trace);
  EXPECT_THAT(text, HasSubstr("  50Mi  "));
  EXPECT_THAT(text, Not(HasSubstr("52428800")));
  EXPECT_THAT(text, HasSubstr("  32  "));
  EXPECT_THAT(text, HasSubstr("(TooManyReplicas)"));
  // Value-less of per-pod targets, the run has none to be above; its replicas still cost.
  EXPECT_THAT(text, HasSubstr("; no per-pod target to be above, 0.00 replica-hours\n"));
  EXPECT_THAT(
      text,
      HasSubstr(
          "why the replicas did not follow the proposal (in parentheses):\n"
          "  TooManyReplicas: the desired replica count is more than the maximum replica count\n"));
}

TEST(RenderJson, CarriesRunsSettingsTicksAndRecordedReplicas) {
  Fixture f;
  auto doc = renderJson({{&f.a, &f.optionsA}}, f.trace);
  ASSERT_EQ(doc["runs"].size(), 1u);
  const auto& run = doc["runs"][0];
  EXPECT_EQ(run["hpa"], "demo/web");
  EXPECT_EQ(run["settings"]["syncPeriod"], "15s");
  EXPECT_EQ(run["settings"]["reconcileDuration"], "50ms");
  EXPECT_EQ(run["peakReplicas"], 8);
  EXPECT_EQ(run["podMinutesAboveTarget"], 12.5);
  EXPECT_EQ(run["replicaHours"], 1.25);
  EXPECT_EQ(run["scaleEvents"][0]["seconds"], 45.0);
  EXPECT_EQ(run["scaleEvents"][0]["to"], 8);
  EXPECT_EQ(run["ticks"].size(), 4u);
  EXPECT_EQ(run["ticks"][2]["metrics"][0]["valueMilli"], 400);
  EXPECT_EQ(run["ticks"][2]["metrics"][0]["unit"], "cores");
  EXPECT_EQ(run["ticks"][2]["metrics"][0]["utilization"], 50);
  EXPECT_EQ(run["ticks"][3]["events"][0]["reason"], "SuccessfulRescale");
  EXPECT_EQ(doc["recorded"][0]["desired"], 0);
  EXPECT_EQ(doc["recorded"][0]["replicas"], 2);
  EXPECT_FALSE(doc.contains("traceStart"));
}

TEST(GnuplotScript, PlotsEveryRunTheRecordedReplicasAndTheSeries) {
  Fixture f;
  const std::string script =
      gnuplotScript({{&f.a, &f.optionsA}, {&f.b, &f.optionsB}}, f.trace, "out \"x\".png");
  EXPECT_THAT(script, HasSubstr("set output \"out \\\"x\\\".png\"\n"));
  EXPECT_THAT(script, HasSubstr("$run0 << EOD\n0 2 2\n0 2 2\n15 2 2\n30 2 2\n45 8 8\nEOD\n"));
  EXPECT_THAT(script, HasSubstr("$run1 << EOD\n0 2 2\n0 2 2\n30 4 4\nEOD\n"));
  EXPECT_THAT(script, HasSubstr("$recorded << EOD\n0 2\nEOD\n"));
  EXPECT_THAT(script, HasSubstr("$series0 << EOD\n0 0.1\n30 0.4\nEOD\n"));
  EXPECT_THAT(script,
              HasSubstr("title \"replicas, b: horizontal-pod-autoscaler-sync-period=30s\""));
  EXPECT_THAT(script, HasSubstr("axes x1y2 with steps title \"cpu (total)\""));
  EXPECT_THAT(script, HasSubstr("set xrange [0:45]\nset yrange [0:9]\nset y2range [0:0.44]\n"));
  const std::string single = gnuplotScript({{&f.a, &f.optionsA}}, f.trace, "a.png");
  EXPECT_THAT(single, HasSubstr("title \"replicas (replay)\""));
  EXPECT_THAT(single, Not(HasSubstr("$run1")));
}

}  // namespace
}  // namespace hpa::replay
