// Golden tests of `explain`: every snapshot under cases/ is explained at the time its first line
// gives ("# now: ..."), and the JSON document must equal cases/<name>.json. The decisive figures
// are also asserted below from hand computation (the comments in each snapshot), so a golden
// file cannot silently bless a wrong decision. HPA_UPDATE_GOLDEN=1 rewrites the JSON files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "explain/explain.h"
#include "explain/recorded_history.h"
#include "explain/render.h"
#include "explain/snapshot.h"

namespace hpa::explain {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Result<Explanation> explainCase(const std::string& name) {
  const fs::path path = fs::path(HPA_EXPLAIN_CASES) / (name + ".yaml");
  std::string text = readFile(path);
  const std::string marker = "# now: ";
  if (text.rfind(marker, 0) != 0)
    return Error::format("{}: first line must be '# now: <RFC3339>'", path.string());
  auto now = parseRFC3339(text.substr(marker.size(), text.find('\n') - marker.size()));
  if (!now.ok()) return now.error();
  auto snapshot = loadSnapshot({SnapshotSource{path.filename().string(), text}});
  if (!snapshot.ok()) return snapshot.error();
  ExplainOptions options;
  options.now = *now;
  // A second line "# forecast-history: FILE" gives what a forecast reads (--forecast-history).
  const std::string historyMarker = "# forecast-history: ";
  const std::size_t second = text.find('\n') + 1;
  if (text.compare(second, historyMarker.size(), historyMarker) == 0) {
    const std::size_t from = second + historyMarker.size();
    const fs::path file =
        fs::path(HPA_EXPLAIN_CASES) / text.substr(from, text.find('\n', from) - from);
    auto samples = readRecordedHistory(readFile(file));
    if (!samples.ok()) return samples.error().wrap(file.string());
    options.forecastHistory =
        std::make_shared<const std::vector<forecast::Sample>>(std::move(*samples));
  }
  return explainSnapshot(*snapshot, options);
}

struct Expected {
  const char* name;
  const char* branch;
  std::int32_t currentReplicas;
  std::int32_t desiredReplicas;
  bool rescale;
  const char* conditionType;  // one condition worth checking
  const char* conditionReason;
};

// Prints the case by its name (gtest would dump the struct's bytes).
void PrintTo(const Expected& c, std::ostream* os) { *os << c.name; }

class Golden : public ::testing::TestWithParam<Expected> {};

const nlohmann::json* conditionOf(const nlohmann::json& doc, const std::string& type) {
  for (const auto& c : doc["status"]["conditions"]) {
    if (c["type"] == type) return &c;
  }
  return nullptr;
}

TEST_P(Golden, MatchesHandComputedDecisionAndGoldenDocument) {
  const Expected& want = GetParam();
  auto explanation = explainCase(want.name);
  ASSERT_TRUE(explanation.ok()) << explanation.error().message;
  nlohmann::json doc = explanationToJson(*explanation);
  EXPECT_EQ(doc["branch"], want.branch);
  EXPECT_EQ(doc["currentReplicas"], want.currentReplicas);
  EXPECT_EQ(doc["desiredReplicas"], want.desiredReplicas);
  EXPECT_EQ(doc["rescale"], want.rescale);
  const auto* condition = conditionOf(doc, want.conditionType);
  ASSERT_NE(condition, nullptr) << want.conditionType;
  EXPECT_EQ((*condition)["reason"], want.conditionReason);
  // The text form is derived from the same report; it must at least name the decision.
  std::string text = explanationToText(*explanation);
  EXPECT_NE(text.find(want.rescale ? "scale " : "keep "), std::string::npos) << text;

  const fs::path golden = fs::path(HPA_EXPLAIN_CASES) / (std::string(want.name) + ".json");
  if (std::getenv("HPA_UPDATE_GOLDEN")) {
    std::ofstream(golden) << doc.dump(2) << "\n";
    GTEST_SKIP() << "golden file rewritten";
  }
  ASSERT_TRUE(fs::exists(golden)) << golden
                                  << " missing; run with HPA_UPDATE_GOLDEN=1 and review it";
  EXPECT_EQ(doc, nlohmann::json::parse(readFile(golden))) << doc.dump(2);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Golden,
    ::testing::Values(
        Expected{"cpu-scale-up", "metrics", 4, 8, true, "ScalingLimited", "ScaleUpLimit"},
        Expected{"cpu-initialization", "metrics", 3, 3, false, "AbleToScale", "ReadyForNewScale"},
        Expected{"pods-metric-missing-pod", "metrics", 3, 6, true, "AbleToScale",
                 "SucceededRescale"},
        Expected{"object-value-v2beta2-statefulset", "metrics", 3, 6, true, "ScalingActive",
                 "ValidMetricFound"},
        Expected{"external-average-value", "metrics", 4, 7, true, "ScalingLimited",
                 "DesiredWithinRange"},
        Expected{"behavior-stabilization-history", "metrics", 4, 4, false, "AbleToScale",
                 "ScaleDownStabilized"},
        Expected{"behavior-scale-down-policy", "metrics", 4, 4, false, "ScalingLimited",
                 "ScaleDownLimit"},
        Expected{"no-scale-target", "failed-get-scale", 0, 0, false, "AbleToScale",
                 "FailedGetScale"},
        Expected{"resource-metrics-absent", "metrics-failed", 2, 0, false, "ScalingActive",
                 "FailedGetResourceMetric"},
        Expected{"controls-paused", "metrics", 4, 8, false, "ScalingActive", "ScalingPaused"},
        Expected{"controls-paused-scale-down", "metrics", 4, 2, false, "AbleToScale",
                 "ScaleDownPaused"},
        Expected{"controls-startup-windows", "metrics", 3, 6, true, "ScalingLimited",
                 "ScaleUpLimit"},
        Expected{"external-average-value-surge", "metrics", 20, 21, true, "AbleToScale",
                 "SucceededRescale"},
        Expected{"controls-within-tolerance-keep", "metrics", 20, 20, false, "AbleToScale",
                 "ReadyForNewScale"},
        Expected{"controls-actuated-requests", "metrics", 2, 4, true, "ScalingActive",
                 "ValidMetricFound"},
        Expected{"controls-limits", "metrics", 3, 4, true, "ScalingActive", "ValidMetricFound"},
        Expected{"controls-limits-missing", "metrics-failed", 3, 0, false, "ScalingActive",
                 "FailedGetResourceMetric"},
        Expected{"controls-fallback", "metrics", 2, 4, true, "ScalingActive", "MetricFallback"},
        Expected{"controls-metric-sources", "metrics", 2, 3, true, "ScalingLimited",
                 "DesiredWithinRange"},
        Expected{"controls-schedule", "metrics", 4, 6, true, "ScalingLimited",
                 "ScheduledMaxReplicas"},
        Expected{"controls-forecast", "metrics", 4, 8, true, "Forecast", "NoForecastHistory"},
        Expected{"controls-forecast-floor", "metrics", 4, 7, true, "ScalingLimited",
                 "ForecastFloor"},
        Expected{"autoscaling-v1-export", "metrics", 3, 4, true, "ScalingLimited", "ScaleUpLimit"}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (auto& c : n) {
        if (c == '-') c = '_';
      }
      return n;
    });

TEST(Explain, FigureDetailsFromTheSnapshots) {
  auto pods = explainCase("pods-metric-missing-pod");
  ASSERT_TRUE(pods.ok());
  nlohmann::json doc = explanationToJson(*pods);
  const auto& calc = doc["metrics"][0]["calculation"];
  EXPECT_EQ(calc["unit"], "number");
  EXPECT_EQ(calc["usageMilli"], 300000);
  EXPECT_EQ(calc["rebalancedRatio"], 2.0);
  EXPECT_EQ(calc["pods"][2]["group"], "missing");
  EXPECT_EQ(calc["pods"][2]["assumedValueMilli"], 0);

  auto external = explainCase("external-average-value");
  ASSERT_TRUE(external.ok());
  doc = explanationToJson(*external);
  EXPECT_EQ(doc["status"]["currentMetrics"][0]["external"]["current"]["averageValue"], "8");

  auto history = explainCase("behavior-stabilization-history");
  ASSERT_TRUE(history.ok());
  doc = explanationToJson(*history);
  EXPECT_EQ(doc["normalization"]["proposed"], 2);
  EXPECT_EQ(doc["normalization"]["stabilized"], 4);
  // The outdated recommendation's slot now holds this reconcile's proposal.
  EXPECT_EQ(doc["history"]["recommendations"][1]["replicas"], 2);
  EXPECT_EQ(doc["history"]["recommendations"][1]["timestamp"], "2026-11-23T10:00:00Z");

  auto init = explainCase("cpu-initialization");
  ASSERT_TRUE(init.ok());
  doc = explanationToJson(*init);
  std::vector<std::string> groups;
  for (const auto& p : doc["metrics"][0]["calculation"]["pods"]) groups.push_back(p["group"]);
  EXPECT_EQ(groups, (std::vector<std::string>{"ready", "unready", "unready"}));

  auto absent = explainCase("resource-metrics-absent");
  ASSERT_TRUE(absent.ok());
  doc = explanationToJson(*absent);
  EXPECT_EQ(doc["metrics"][0]["error"],
            "failed to get cpu utilization: unable to get metrics for resource cpu: no metrics "
            "returned from resource "
            "metrics API");
}

// The section of the text form that starts at `heading` ("conditions:"), to its end.
std::string textFrom(const std::string& text, const std::string& heading) {
  auto at = text.find("\n" + heading);
  return at == std::string::npos ? std::string() : text.substr(at + 1);
}

TEST(Explain, NamesEachRoutedMetricsSource) {
  auto routed = explainCase("controls-metric-sources");
  ASSERT_TRUE(routed.ok());
  const std::string text = explanationToText(*routed);
  EXPECT_NE(text.find("- external metric queue_a (from service metrics/adapter-a:443): current 15 "
                      "per pod -> 3 replicas"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(from API group b.metrics.example.com)"), std::string::npos) << text;
  EXPECT_NE(text.find("metric 1 read from service metrics/adapter-a:443 "
                      "(hpa-controller.io/metric-sources)"),
            std::string::npos)
      << text;
  const nlohmann::json doc = explanationToJson(*routed);
  EXPECT_EQ(doc["metrics"][0]["source"], "service metrics/adapter-a:443");
  EXPECT_EQ(doc["metrics"][1]["source"], "API group b.metrics.example.com");
  EXPECT_EQ(
      doc["controls"]["metricSources"],
      nlohmann::json::array({"service metrics/adapter-a:443", "API group b.metrics.example.com"}));
  // Without the control, neither the metrics nor the controls carry a source.
  auto plain = explainCase("external-average-value");
  ASSERT_TRUE(plain.ok());
  const nlohmann::json plainDoc = explanationToJson(*plain);
  EXPECT_FALSE(plainDoc["metrics"][0].contains("source"));
  // (A const document's operator[] must not be asked for a key it lacks.)
  EXPECT_FALSE(plainDoc.contains("controls") && plainDoc.at("controls").contains("metricSources"));
}

TEST(Explain, TextShowsValuesInTheirUnitsAndSelectorsAsKubectlDoes) {
  auto external = explainCase("external-average-value");
  ASSERT_TRUE(external.ok());
  std::string text = explanationToText(*external);
  const std::string ours = text.substr(0, text.find("\nconditions:"));
  // explain's own lines: the selector as key=value, values as plain numbers.
  EXPECT_NE(
      ours.find(
          "from 4 to 7 replicas (external metric queue_messages_ready{queue=work} above target)"),
      std::string::npos)
      << text;
  EXPECT_NE(
      ours.find(
          "- external metric queue_messages_ready{queue=work}: current 8 per pod -> 7 replicas"),
      std::string::npos)
      << text;
  EXPECT_NE(ours.find("ceil(total 32 / target per pod 5) = 7"), std::string::npos) << text;
  EXPECT_EQ(ours.find("LabelSelector"), std::string::npos) << text;
  // Upstream's texts stay upstream's, Go's print of the selector included.
  EXPECT_NE(
      textFrom(text, "events:")
          .find("reason: external metric queue_messages_ready(&LabelSelector{MatchLabels:"
                "map[string]string{queue: work,},MatchExpressions:[]LabelSelectorRequirement{},}) "
                "above target"),
      std::string::npos)
      << text;
  nlohmann::json doc = explanationToJson(*external);
  EXPECT_EQ(doc["metrics"][0]["name"],
            "external metric "
            "queue_messages_ready(&LabelSelector{MatchLabels:map[string]string{queue: work,},"
            "MatchExpressions:[]LabelSelectorRequirement{},})");
  EXPECT_EQ(explanationsTable({*external}, false).find("LabelSelector"), std::string::npos);
  EXPECT_NE(explanationsTable({*external}, false)
                .find("external metric queue_messages_ready{queue=work}"),
            std::string::npos);

  auto memory = explainCase("behavior-stabilization-history");
  ASSERT_TRUE(memory.ok());
  text = explanationToText(*memory);
  EXPECT_NE(text.find("- memory resource: current 50Mi per pod -> 2 replicas"), std::string::npos)
      << text;
  EXPECT_EQ(explanationToJson(*memory)["metrics"][0]["calculation"]["unit"], "bytes");

  auto cpu = explainCase("cpu-scale-up");
  ASSERT_TRUE(cpu.ok());
  text = explanationToText(*cpu);
  EXPECT_NE(text.find("current 150% of request, 150m per pod -> 9 replicas"), std::string::npos)
      << text;
  EXPECT_EQ(explanationToJson(*cpu)["metrics"][0]["calculation"]["unit"], "cores");

  auto missing = explainCase("pods-metric-missing-pod");
  ASSERT_TRUE(missing.ok());
  text = explanationToText(*missing);
  EXPECT_NE(text.find("missing web-c: no metric (assumed 0)"), std::string::npos) << text;
}

// What `kubectl get hpa -o yaml` prints on a 1.20 server: the metric of the annotation first, then
// the CPU target of targetCPUUtilizationPercentage, each in its unit; the behavior of its
// annotation limits the scale-up.
TEST(Explain, AutoscalingV1ExportDecidesAsTheServersV2Form) {
  auto v1 = explainCase("autoscaling-v1-export");
  ASSERT_TRUE(v1.ok());
  std::string text = explanationToText(*v1);
  EXPECT_NE(text.find("- memory resource: current 100Mi per pod -> 6 replicas"), std::string::npos)
      << text;
  EXPECT_NE(text.find("- cpu resource utilization (percentage of request): current 40% of request, "
                      "40m per pod -> 2"),
            std::string::npos)
      << text;
  nlohmann::json doc = explanationToJson(*v1);
  EXPECT_EQ(doc["metrics"][0]["calculation"]["unit"], "bytes");
  EXPECT_EQ(doc["metrics"][0]["calculation"]["usageMilli"], 100LL * 1024 * 1024 * 1000);
  EXPECT_EQ(doc["metrics"][1]["calculation"]["unit"], "cores");
  EXPECT_EQ(doc["metrics"][1]["calculation"]["usageMilli"], 40);
  EXPECT_EQ(doc["normalization"]["proposed"], 6);
  EXPECT_EQ(doc["normalization"]["scaleUpLimit"], 4);
}

// A target whose Scale cannot be read stops the reconcile before the bounds: the HPA's own show.
TEST(Explain, APauseInOneDirectionSaysWhatItHolds) {
  auto paused = explainCase("controls-paused-scale-down");
  ASSERT_TRUE(paused.ok()) << paused.error().message;
  nlohmann::json doc = explanationToJson(*paused);
  EXPECT_EQ(doc["controls"]["paused"], true);
  EXPECT_EQ(doc["controls"]["pause"], "ScaleDown");
  EXPECT_EQ(doc["controls"]["pausedScaleTo"], 2);
  EXPECT_EQ(conditionOf(doc, "ScalingActive")->at("reason"), "ValidMetricFound");
  const std::string text = explanationToText(*paused);
  EXPECT_NE(text.find("keep Deployment/default/web at 4 replicas (scale-down paused: would scale "
                      "to 2)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  scale-down paused (hpa-controller.io/paused: ScaleDown): would scale "
                      "Deployment/default/web from 4 to 2 replicas; the scale is left alone "
                      "(scale-up stays live)"),
            std::string::npos)
      << text;
}

TEST(Explain, UtilizationAgainstLimitsAndAMissingLimit) {
  auto limits = explainCase("controls-limits");
  ASSERT_TRUE(limits.ok()) << limits.error().message;
  nlohmann::json doc = explanationToJson(*limits);
  EXPECT_EQ(doc["controls"]["requestsSource"], "Limits");
  const auto& calc = doc["metrics"][0]["calculation"];
  EXPECT_EQ(calc["utilization"], 65);                                    // 1170m of 1800m
  for (const auto& p : calc["pods"]) EXPECT_EQ(p["requestMilli"], 600);  // app and its sidecar
  EXPECT_EQ(doc["metricName"], "cpu resource utilization (percentage of limit)");
  std::string text = explanationToText(*limits);
  EXPECT_NE(text.find("  requests source Limits (hpa-controller.io/requests-source): utilization "
                      "against the containers' limits, not their requests"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("current 65% of limit, 390m per pod -> 4 replicas"), std::string::npos)
      << text;

  auto missing = explainCase("controls-limits-missing");
  ASSERT_TRUE(missing.ok()) << missing.error().message;
  doc = explanationToJson(*missing);
  EXPECT_EQ(doc["metrics"][0]["conditionReason"], "FailedGetResourceMetric");
  EXPECT_EQ(doc["metrics"][0]["error"],
            "failed to get cpu utilization: missing limit for cpu in container app of Pod web-b");
}

TEST(Explain, StartupWindowsOfTheHpaAreShownAndGroupItsPods) {
  auto windows = explainCase("controls-startup-windows");
  ASSERT_TRUE(windows.ok()) << windows.error().message;
  nlohmann::json doc = explanationToJson(*windows);
  EXPECT_EQ(doc["controls"]["cpuInitializationPeriod"], "1m0s");
  EXPECT_EQ(doc["controls"]["initialReadinessDelay"], "20s");
  std::vector<std::string> groups;
  for (const auto& p : doc["metrics"][0]["calculation"]["pods"]) groups.push_back(p["group"]);
  EXPECT_EQ(groups, (std::vector<std::string>{"ready", "ready", "unready"}));
  const std::string text = explanationToText(*windows);
  EXPECT_NE(text.find("  cpu initialization period 1m0s "
                      "(hpa-controller.io/cpu-initialization-period): for cpu, a pod started less "
                      "than 1m0s ago counts only once ready for a full metric window"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  initial readiness delay 20s (hpa-controller.io/initial-readiness-delay)"),
            std::string::npos)
      << text;
}

TEST(Explain, WithinToleranceKeepSaysWhichCountItKeeps) {
  auto kept = explainCase("controls-within-tolerance-keep");
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  nlohmann::json doc = explanationToJson(*kept);
  EXPECT_EQ(doc["controls"]["withinToleranceKeep"], "Spec");
  const std::string text = explanationToText(*kept);
  EXPECT_NE(text.find("keep 20 replicas (spec's)"), std::string::npos) << text;
  EXPECT_NE(text.find("  within the tolerance, per-pod Object and External targets keep "
                      "spec.replicas (hpa-controller.io/within-tolerance-keep: Spec)"),
            std::string::npos)
      << text;
  auto upstream = explainCase("external-average-value-surge");
  ASSERT_TRUE(upstream.ok()) << upstream.error().message;
  // An HPA without controls has no controls document.
  EXPECT_FALSE(explanationToJson(*upstream)["controls"].is_object());
  EXPECT_NE(explanationToText(*upstream).find("keep 21 replicas"), std::string::npos);
}

TEST(Explain, FailedGetScaleShowsTheHpasOwnBounds) {
  auto e = explainCase("no-scale-target");
  ASSERT_TRUE(e.ok());
  nlohmann::json doc = explanationToJson(*e);
  EXPECT_EQ(doc["minReplicas"], 1);  // absent in the HPA: the API server's default
  EXPECT_EQ(doc["maxReplicas"], 10);
  EXPECT_NE(explanationToText(*e).find("(min 1, max 10)"), std::string::npos)
      << explanationToText(*e);
}

struct Malformed {
  const char* label;
  const char* document;
  const char* messagePart;
};

// Prints the case by its name (gtest would dump the struct's bytes).
void PrintTo(const Malformed& c, std::ostream* os) { *os << c.label; }

class MalformedInput : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedInput, NamesFileDocumentAndField) {
  const auto& c = GetParam();
  auto snapshot = loadSnapshot({SnapshotSource{"in.yaml", c.document}});
  ASSERT_FALSE(snapshot.ok()) << c.label;
  EXPECT_NE(snapshot.error().message.find(c.messagePart), std::string::npos)
      << snapshot.error().message;
  EXPECT_EQ(snapshot.error().message.rfind("in.yaml", 0), 0u) << snapshot.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedInput,
    ::testing::Values(
        Malformed{"bad_yaml", "apiVersion: v1\nkind: [Pod\n", "in.yaml"},
        Malformed{
            "bad_quantity",
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: "
            "a}\nspec:\n"
            "  scaleTargetRef: {kind: Deployment, name: a}\n  maxReplicas: 3\n  metrics:\n  - "
            "type: Pods\n"
            "    pods: {metric: {name: x}, target: {type: AverageValue, averageValue: 12Q}}\n",
            "spec.metrics[0].pods.target.averageValue"},
        Malformed{"max_replicas_text",
                  "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: "
                  "a}\nspec:\n"
                  "  scaleTargetRef: {kind: Deployment, name: a}\n  maxReplicas: many\n",
                  "spec.maxReplicas"},
        Malformed{"second_document",
                  "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\napiVersion: v1\nkind: "
                  "Pod\nmetadata: "
                  "{name: q}\nstatus: {startTime: yesterday}\n",
                  "document 2"},
        Malformed{"list_item",
                  "apiVersion: v1\nkind: List\nitems:\n- apiVersion: metrics.k8s.io/v1beta1\n  "
                  "kind: PodMetrics\n"
                  "  metadata: {name: p}\n  timestamp: 2026-11-23T10:00:00Z\n  window: soon\n",
                  "items[0]"},
        Malformed{"unknown_kind", "apiVersion: v1\nkind: Banana\nmetadata: {name: p}\n", "Banana"},
        // A version explain does not read: the message gives the export that works, per server
        // version.
        Malformed{"hpa_v2beta1_export_hint",
                  "apiVersion: autoscaling/v2beta1\nkind: HorizontalPodAutoscaler\nmetadata: "
                  "{name: web}\nspec:\n"
                  "  scaleTargetRef: {kind: Deployment, name: web}\n  maxReplicas: 3\n",
                  "`kubectl get hpa.v2beta2.autoscaling web -o yaml` on 1.12 to 1.25"},
        Malformed{"hpa_v2_export_hint",
                  "apiVersion: autoscaling/v2beta1\nkind: HorizontalPodAutoscaler\nmetadata: "
                  "{name: web}\n",
                  "`kubectl get hpa.v2.autoscaling web -o yaml` on Kubernetes 1.23 and later"},
        Malformed{
            "hpa_v1_annotation",
            "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  "
            "annotations:\n"
            "    autoscaling.alpha.kubernetes.io/metrics: '[{\"type\": \"Pods\", \"pods\": "
            "{\"targetAverageValue\": "
            "true}}]'\nspec:\n  scaleTargetRef: {kind: Deployment, name: web}\n  maxReplicas: 3\n",
            "metadata.annotations[autoscaling.alpha.kubernetes.io/"
            "metrics][0].pods.targetAverageValue"},
        Malformed{"template_request",
                  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  "
                  "template:\n    spec:\n"
                  "      containers:\n      - {name: app, resources: {requests: {cpu: lots}}}\n",
                  "spec.template.spec.containers[0].resources.requests.cpu"}),
    [](const auto& info) { return std::string(info.param.label); });

TEST(Explain, WorkloadsKeepTheirPodTemplateAndNamespacesAreSkipped) {
  auto snapshot = loadSnapshot({SnapshotSource{
      "app.yaml",
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: demo}\n---\n"
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: demo}\nspec:\n  "
      "replicas: 3\n"
      "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    "
      "spec:\n"
      "      containers:\n      - {name: app, resources: {requests: {cpu: 250m}}}\n"}});
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message;
  ASSERT_EQ(snapshot->scales.size(), 1u);
  const auto& entry = snapshot->scales.front();
  EXPECT_EQ(entry.scale.specReplicas, 3);
  ASSERT_TRUE(entry.podTemplate.has_value());
  EXPECT_EQ(entry.podTemplate->labels.get("app"), "web");
  ASSERT_EQ(entry.podTemplate->containers.size(), 1u);
  EXPECT_EQ(entry.podTemplate->containers[0].requests.get("cpu"), 250);
}

TEST(Explain, UnusableSnapshots) {
  auto none = loadSnapshot(
      {SnapshotSource{"pods.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"}});
  ASSERT_TRUE(none.ok());
  ExplainOptions options;
  auto result = explainSnapshot(*none, options);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("HorizontalPodAutoscaler"), std::string::npos)
      << result.error().message;
}

}  // namespace
}  // namespace hpa::explain
