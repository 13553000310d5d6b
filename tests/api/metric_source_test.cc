// The metric types as one closed set: each known type reads and writes its own field, keeps
// nothing else, and answers the per-type rules; a type without its field, or one the controller
// does not know, stays as it was read.

#include "api/metric_source.h"

#include <gtest/gtest.h>

#include "api/codec.h"

namespace hpa::api {
namespace {

using nlohmann::json;

json hpaWithMetrics(json metrics) {
  return json{{"apiVersion", "autoscaling/v2"},
              {"kind", "HorizontalPodAutoscaler"},
              {"metadata", {{"name", "web"}, {"namespace", "default"}}},
              {"spec",
               {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "web"}}},
                {"maxReplicas", 3},
                {"metrics", std::move(metrics)}}}};
}

std::vector<MetricSpec> decodedMetrics(json metrics) {
  auto hpa = decodeHorizontalPodAutoscaler(hpaWithMetrics(std::move(metrics)));
  EXPECT_TRUE(hpa.ok()) << hpa.error().message;
  return hpa.ok() ? hpa->spec.metrics : std::vector<MetricSpec>{};
}

TEST(MetricSource, EachKnownTypeReadsAndWritesItsOwnField) {
  forEachKnownSourceType([]<typename Source>(std::type_identity<Source>) {
    const json entry{{"type", Source::kType},
                     {Source::kField, {{"target", {{"type", "AverageValue"}}}}}};
    const auto metrics = decodedMetrics(json::array({entry}));
    ASSERT_EQ(metrics.size(), 1u);
    ASSERT_TRUE(metrics[0].as<Source>()) << Source::kType;
    EXPECT_EQ(typeOf(metrics[0]), Source::kType);
    EXPECT_EQ(fieldOf(metrics[0]), Source::kField);
    ASSERT_TRUE(targetOf(metrics[0]));
    EXPECT_EQ(targetOf(metrics[0])->type, "AverageValue");
    HorizontalPodAutoscalerSpec spec;
    spec.metrics = metrics;
    const json written = encodeHorizontalPodAutoscalerSpec(spec)["metrics"][0];
    EXPECT_EQ(written["type"], Source::kType);
    EXPECT_TRUE(written.contains(Source::kField)) << written.dump();
    EXPECT_EQ(written.size(), 2u) << written.dump();
  });
}

TEST(MetricSource, OnlyTheFieldTheTypeNamesIsKept) {
  const auto metrics = decodedMetrics(
      json::array({{{"type", "Pods"},
                    {"pods",
                     {{"metric", {{"name", "rps"}}},
                      {"target", {{"type", "AverageValue"}, {"averageValue", "1"}}}}},
                    {"resource", {{"name", "cpu"}}}}}));
  ASSERT_TRUE(metrics[0].as<PodsMetricSource>());
  EXPECT_EQ(metricNameOf(metrics[0]), "rps");
}

TEST(MetricSource, AnUnknownTypeOrAMissingFieldIsKeptAsRead) {
  const auto metrics = decodedMetrics(
      json::array({{{"type", "CheddarCheese"}}, {{"type", "Resource"}}, json::object()}));
  ASSERT_EQ(metrics.size(), 3u);
  EXPECT_EQ(metrics[0].source, MetricSource(UnknownMetricSource{"CheddarCheese"}));
  EXPECT_EQ(metrics[1].source, MetricSource(UnknownMetricSource{"Resource"}));
  EXPECT_EQ(metrics[2].source, MetricSource(UnknownMetricSource{""}));
  EXPECT_EQ(typeOf(metrics[1]), "Resource");
  EXPECT_EQ(fieldOf(metrics[1]), "");
  EXPECT_EQ(targetOf(metrics[1]), nullptr);
  EXPECT_TRUE(namesType<ResourceMetricSource>(metrics[1]));
  EXPECT_FALSE(namesType<PodsMetricSource>(metrics[1]));
  HorizontalPodAutoscalerSpec spec;
  spec.metrics = metrics;
  EXPECT_EQ(encodeHorizontalPodAutoscalerSpec(spec)["metrics"],
            json::array({{{"type", "CheddarCheese"}}, {{"type", "Resource"}}, {{"type", ""}}}));
}

TEST(MetricSource, NamesAndWorkloadWideValuesByType) {
  const MetricSpec cpu{ResourceMetricSource{"cpu", {}}};
  const MetricSpec memory{ContainerResourceMetricSource{"memory", {}, "app"}};
  const MetricSpec rps{PodsMetricSource{{"rps", std::nullopt}, {}}};
  const MetricSpec hits{
      ObjectMetricSource{{"Ingress", "main", "networking.k8s.io/v1"}, {}, {"hits", std::nullopt}}};
  const MetricSpec queue{ExternalMetricSource{{"queue", LabelSelector{{{"q", "work"}}, {}}}, {}}};
  EXPECT_EQ(metricNameOf(cpu), "cpu");
  EXPECT_EQ(metricNameOf(memory), "memory");
  EXPECT_EQ(metricNameOf(rps), "rps");
  EXPECT_EQ(metricNameOf(hits), "hits");
  EXPECT_EQ(metricNameOf(queue), "queue");
  EXPECT_EQ(identifierOf(cpu), nullptr);
  ASSERT_NE(identifierOf(queue), nullptr);
  EXPECT_EQ(identifierOf(queue)->selector->matchLabels.at("q"), "work");
  EXPECT_FALSE(isWorkloadWide(cpu));
  EXPECT_FALSE(isWorkloadWide(memory));
  EXPECT_FALSE(isWorkloadWide(rps));
  EXPECT_TRUE(isWorkloadWide(hits));
  EXPECT_TRUE(isWorkloadWide(queue));
  // By type, as upstream's scale-to-zero check reads it, even without the field.
  EXPECT_TRUE(isWorkloadWide(MetricSpec{UnknownMetricSource{kExternalMetric}}));
  EXPECT_FALSE(isWorkloadWide(MetricSpec{UnknownMetricSource{"CheddarCheese"}}));
  EXPECT_FALSE(emptySourceOfType("CheddarCheese").has_value());
  EXPECT_EQ(emptySourceOfType(kObjectMetric), MetricSource(ObjectMetricSource{}));
}

TEST(MetricSource, TheCurrentValueOfAStatusEntry) {
  MetricStatus failed;
  EXPECT_EQ(currentOf(failed), nullptr);
  MetricStatus external;
  external.type = kExternalMetric;
  external.external = ExternalMetricStatus{{"queue", std::nullopt},
                                           MetricValueStatus{Quantity::fromValue(30), {}, {}}};
  ASSERT_NE(currentOf(external), nullptr);
  EXPECT_EQ(currentOf(external)->value, Quantity::fromValue(30));
}

}  // namespace
}  // namespace hpa::api
