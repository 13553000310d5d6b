// hpa-controller.io/forecast: the annotation read against the HPA's metrics and target.

#include "controls/forecast_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controls/hpa_controls.h"

namespace hpa::controls {
namespace {

using std::chrono::minutes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

api::MetricSpec cpuUtilization(std::int32_t percent) {
  api::MetricSpec m;
  m.source = api::ResourceMetricSource{
      "cpu", api::MetricTarget{api::kUtilizationTarget, std::nullopt, std::nullopt, percent}};
  return m;
}

api::MetricSpec pods(const std::string& name, const char* targetType) {
  api::PodsMetricSource source;
  source.metric.name = name;
  source.target.type = targetType;
  if (std::string(targetType) == api::kValueTarget) {
    source.target.value = api::Quantity::fromValue(100);
  } else {
    source.target.averageValue = api::Quantity::fromValue(10);
  }
  api::MetricSpec m;
  m.source = source;
  return m;
}

api::HorizontalPodAutoscaler webHpa(std::vector<api::MetricSpec> metrics) {
  api::HorizontalPodAutoscaler hpa;
  hpa.metadata.namespace_ = "shop";
  hpa.metadata.name = "web";
  hpa.spec.scaleTargetRef.kind = "Deployment";
  hpa.spec.scaleTargetRef.name = "web";
  hpa.spec.metrics = std::move(metrics);
  return hpa;
}

TEST(ForecastSpec, AnEmptyObjectPreviewsTheFirstMetricWithTheDefaultQuery) {
  auto spec = parseForecast("{}", webHpa({cpuUtilization(60)}));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->mode, ForecastMode::Preview);
  EXPECT_EQ(spec->metricIndex, 0u);
  EXPECT_EQ(spec->metric, "cpu");
  EXPECT_TRUE(spec->defaultQuery);
  EXPECT_EQ(spec->query,
            "sum(rate(container_cpu_usage_seconds_total{namespace=\"shop\",pod=~\"web-.*\","
            "container!=\"\"}[5m]))");
  EXPECT_FALSE(spec->lead);
  // Nothing set: the forecaster's own defaults.
  const forecast::ForecastOptions defaults;
  const auto options = spec->options();
  EXPECT_EQ(options.cycles, defaults.cycles);
  EXPECT_EQ(options.quantile, defaults.quantile);
  EXPECT_EQ(options.margin, defaults.margin);
  EXPECT_EQ(options.minStrength, defaults.minStrength);
  EXPECT_EQ(options.trend, defaults.trend);
  EXPECT_EQ(options.recent, defaults.recent);
  EXPECT_FALSE(options.forgetBefore);
}

TEST(ForecastSpec, ReadsEveryField) {
  const auto hpa = webHpa({cpuUtilization(60), pods("requests_per_second", "AverageValue")});
  auto spec = parseForecast(R"(
mode: Active
metric: requests_per_second
query: 'sum(rate(http_requests_total{namespace="shop"}[5m]))'
lead: 4m
forgetBefore: 2026-11-20T00:00:00Z
cycles: 3
quantile: 0.9
margin: 1.1
minStrength: 0.4
trend: Difference
recent: 1h
)",
                            hpa);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->mode, ForecastMode::Active);
  EXPECT_EQ(spec->metricIndex, 1u);
  EXPECT_EQ(spec->metric, "requests_per_second");
  EXPECT_FALSE(spec->defaultQuery);
  EXPECT_EQ(spec->query, "sum(rate(http_requests_total{namespace=\"shop\"}[5m]))");
  EXPECT_EQ(spec->lead, minutes(4));
  const auto options = spec->options();
  EXPECT_EQ(options.cycles, 3);
  EXPECT_DOUBLE_EQ(options.quantile, 0.9);
  EXPECT_DOUBLE_EQ(options.margin, 1.1);
  EXPECT_DOUBLE_EQ(options.minStrength, 0.4);
  EXPECT_EQ(options.trend, forecast::TrendAdjustment::kDifference);
  EXPECT_EQ(options.recent, std::chrono::hours(1));
  EXPECT_EQ(options.forgetBefore, *parseRFC3339("2026-11-20T00:00:00Z"));
  EXPECT_EQ(describeForecast(*spec), "Active on requests_per_second");
}

TEST(ForecastSpec, JsonAndCranesBaselineAreAccepted) {
  auto spec = parseForecast(R"({"quantile": 1, "trend": "None", "margin": 1.1, "recent": "0s"})",
                            webHpa({cpuUtilization(60)}));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_DOUBLE_EQ(spec->options().quantile, 1.0);
  EXPECT_EQ(spec->options().trend, forecast::TrendAdjustment::kNone);
  EXPECT_EQ(spec->options().recent, Duration::zero());
}

TEST(ForecastSpec, MemoryAndContainerMetricsHaveDefaultQueries) {
  api::MetricSpec memory;
  memory.source = api::ResourceMetricSource{
      "memory", api::MetricTarget{api::kAverageValueTarget, std::nullopt,
                                  api::Quantity::fromValue(1 << 30), std::nullopt}};
  auto spec = parseForecast("metric: memory", webHpa({cpuUtilization(60), memory}));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->query,
            "sum(container_memory_working_set_bytes{namespace=\"shop\",pod=~\"web-.*\","
            "container!=\"\"})");
  api::MetricSpec container;
  container.source = api::ContainerResourceMetricSource{
      "cpu", api::MetricTarget{api::kUtilizationTarget, std::nullopt, std::nullopt, 70}, "app"};
  spec = parseForecast("{}", webHpa({container}));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_THAT(spec->query, HasSubstr("container=\"app\""));
  // A dot of the target's name is a dot, not any character.
  EXPECT_THAT(defaultForecastQuery("cpu", "", "shop", "web.v2"), HasSubstr(R"(web\\.v2-.*)"));
}

// Each unusable value is refused with words that say what is wrong.
TEST(ForecastSpec, RefusesWhatCannotMakeAFloor) {
  const auto hpa = webHpa({cpuUtilization(60), pods("rps", "AverageValue"), pods("q", "Value")});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1, 2]", "must be a YAML or JSON object"},
      {"mode: Aggressive", "mode \"Aggressive\" must be Preview or Active"},
      {"metric: latency", "metric \"latency\" is not among spec.metrics"},
      {"metric: rps", "needs a query"},
      {"{metric: q, query: 'sum(q)'}", "has a Value target"},
      {"lead: soon", "lead"},
      {"lead: 7h", "lead must be between 0s and 6h0m0s"},
      {"lead: -1m", "lead must be between"},
      {"forgetBefore: yesterday", "forgetBefore"},
      {"cycles: 0", "cycles must be a whole number"},
      {"cycles: 2.5", "cycles must be a whole number"},
      {"quantile: 1.5", "quantile"},
      {"quantile: high", "quantile must be a number"},
      {"margin: 0", "margin"},
      {"trend: Up", "trend \"Up\" must be Ratio, Difference or None"},
      {"recent: later", "recent"},
      {"recent: 25h", "recent must be between 0s and 24h0m0s"},
      {"recent: -1m", "recent must be between"},
      {"recent: 2", "recent must be a string"},
      {"query: ''", "query must not be empty"},
      {"cycle: 4", "unknown field \"cycle\""},
      {"mode: [Active]", "mode must be a string"},
  };
  for (const auto& [text, words] : cases) {
    auto spec = parseForecast(text, hpa);
    ASSERT_FALSE(spec.ok()) << text;
    EXPECT_THAT(spec.error().message, HasSubstr(words)) << text;
  }
  EXPECT_FALSE(parseForecast("{}", webHpa({})).ok());
}

TEST(ForecastSpec, AnInvalidAnnotationIsAControlErrorAndNoForecast) {
  auto hpa = webHpa({cpuUtilization(60)});
  hpa.metadata.annotations[kForecastAnnotation] = "mode: Later";
  const auto c = parseControls(hpa);
  EXPECT_FALSE(c.forecast);
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].control, kForecastAnnotation);
  EXPECT_EQ(c.errors[0].reason, api::kInvalidControl);
  EXPECT_THAT(c.errors[0].message, HasSubstr("is invalid: mode \"Later\" must be Preview or "
                                             "Active; no forecast and no floor"));
  EXPECT_TRUE(c.any());
}

TEST(ForecastSpec, OnlyAnActiveForecastChangesADecision) {
  auto hpa = webHpa({cpuUtilization(60)});
  hpa.metadata.annotations[kForecastAnnotation] = "mode: Preview";
  auto c = parseControls(hpa);
  ASSERT_TRUE(c.forecast);
  EXPECT_TRUE(c.any());
  EXPECT_THAT(decisionChangingControls(c), IsEmpty());
  hpa.metadata.annotations[kForecastAnnotation] = "mode: Active";
  c = parseControls(hpa);
  EXPECT_THAT(decisionChangingControls(c),
              ElementsAre("hpa-controller.io/forecast: Active on cpu"));
}

}  // namespace
}  // namespace hpa::controls
