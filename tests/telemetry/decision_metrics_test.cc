#include "telemetry/decision_metrics.h"

#include <gtest/gtest.h>

namespace hpa::telemetry {
namespace {

using report::DecisionLimit;
using report::DecisionOutcome;

std::string scrape(const DecisionMetrics& metrics) {
  std::string text;
  metrics.render(text);
  return text;
}

bool has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

DecisionOutcome outcome(int current, int desired, std::optional<int> proposed, DecisionLimit limit,
                        bool active, std::optional<Time> readAt) {
  return DecisionOutcome{current, desired, proposed, limit, active, readAt, "", std::nullopt};
}

TEST(DecisionMetrics, ShowsEachHpasLastDecision) {
  DecisionMetrics metrics;
  metrics.record(
      "shop", "web",
      outcome(3, 10, 14, DecisionLimit::MaxReplicas, true, Time(std::chrono::seconds(1700))));
  const std::string text = scrape(metrics);
  EXPECT_TRUE(has(text, R"(hpa_controller_current_replicas{name="web",namespace="shop"} 3)"))
      << text;
  EXPECT_TRUE(has(text, R"(hpa_controller_desired_replicas{name="web",namespace="shop"} 10)"))
      << text;
  EXPECT_TRUE(has(text, R"(hpa_controller_proposed_replicas{name="web",namespace="shop"} 14)"))
      << text;
  EXPECT_TRUE(has(
      text, R"(hpa_controller_limited_by{name="web",namespace="shop",limited_by="maxReplicas"} 1)"))
      << text;
  EXPECT_TRUE(has(text, R"(hpa_controller_scaling_active{name="web",namespace="shop"} 1)")) << text;
  EXPECT_TRUE(
      has(text,
          R"(hpa_controller_metrics_read_timestamp_seconds{name="web",namespace="shop"} 1700.000)"))
      << text;
}

TEST(DecisionMetrics, KeepsOneLimitSeriesAndTheLastReadTimeWhenMetricsFail) {
  DecisionMetrics metrics;
  metrics.record(
      "shop", "web",
      outcome(3, 5, 5, DecisionLimit::StabilizationWindow, true, Time(std::chrono::seconds(100))));
  metrics.record("shop", "web",
                 outcome(3, 3, std::nullopt, DecisionLimit::None, false, std::nullopt));
  const std::string text = scrape(metrics);
  EXPECT_TRUE(
      has(text, R"(hpa_controller_limited_by{name="web",namespace="shop",limited_by="none"} 1)"))
      << text;
  EXPECT_EQ(text.find(R"(limited_by="stabilizationWindow")"), std::string::npos) << text;
  EXPECT_EQ(text.find("hpa_controller_proposed_replicas{"), std::string::npos)
      << "no proposal, no series\n"
      << text;
  EXPECT_TRUE(has(text, R"(hpa_controller_scaling_active{name="web",namespace="shop"} 0)")) << text;
  EXPECT_TRUE(
      has(text,
          R"(hpa_controller_metrics_read_timestamp_seconds{name="web",namespace="shop"} 100.000)"))
      << text;
}

TEST(DecisionMetrics, AForgottenHpasSeriesGoAndOthersStay) {
  DecisionMetrics metrics;
  const Time t(std::chrono::seconds(5));
  metrics.record("shop", "web", outcome(2, 2, 2, DecisionLimit::None, true, t));
  metrics.record("shop", "api", outcome(4, 4, 4, DecisionLimit::Paused, true, t));
  metrics.forget("shop", "web");
  metrics.forget("shop", "never-seen");
  const std::string text = scrape(metrics);
  EXPECT_EQ(text.find(R"(name="web")"), std::string::npos) << text;
  EXPECT_TRUE(
      has(text, R"(hpa_controller_limited_by{name="api",namespace="shop",limited_by="paused"} 1)"))
      << text;
  EXPECT_TRUE(has(text, R"(hpa_controller_current_replicas{name="api",namespace="shop"} 4)"))
      << text;
}

TEST(DecisionMetrics, EscapesLabelValuesAndWritesEachFamilyOnce) {
  DecisionMetrics metrics;
  metrics.record("a\"b", "c\\d\ne",
                 outcome(1, 1, std::nullopt, DecisionLimit::None, true, std::nullopt));
  metrics.record("shop", "web",
                 outcome(1, 1, std::nullopt, DecisionLimit::None, true, std::nullopt));
  const std::string text = scrape(metrics);
  EXPECT_TRUE(has(text, R"(hpa_controller_current_replicas{name="c\\d\ne",namespace="a\"b"} 1)"))
      << text;
  std::size_t types = 0;
  for (auto at = text.find("# TYPE hpa_controller_current_replicas gauge"); at != std::string::npos;
       at = text.find("# TYPE hpa_controller_current_replicas gauge", at + 1)) {
    ++types;
  }
  EXPECT_EQ(types, 1u) << text;
}

TEST(DecisionMetrics, AFailingHpaHasOneSeriesWithItsReasonUntilItSucceeds) {
  DecisionMetrics metrics;
  const Time t(std::chrono::seconds(5));
  DecisionOutcome failing = outcome(3, 3, std::nullopt, DecisionLimit::None, false, std::nullopt);
  failing.failingReason = "FailedGetResourceMetric";
  metrics.record("shop", "web", failing);
  metrics.record("shop", "api", outcome(4, 4, 4, DecisionLimit::None, true, t));
  DecisionOutcome gone = outcome(0, 0, std::nullopt, DecisionLimit::None, false, std::nullopt);
  gone.failingReason = report::kTargetNotFoundReason;
  metrics.record("shop", "orphan", gone);
  std::string text = scrape(metrics);
  EXPECT_TRUE(has(
      text,
      R"(hpa_controller_reconcile_failing{name="web",namespace="shop",reason="FailedGetResourceMetric"} 1)"))
      << text;
  EXPECT_TRUE(has(
      text,
      R"(hpa_controller_reconcile_failing{name="orphan",namespace="shop",reason="TargetNotFound"} 1)"))
      << text;
  EXPECT_EQ(text.find(R"(hpa_controller_reconcile_failing{name="api")"), std::string::npos)
      << "a healthy HPA has none";

  metrics.record("shop", "web", outcome(3, 3, 3, DecisionLimit::None, true, t));
  metrics.forget("shop", "orphan");
  text = scrape(metrics);
  EXPECT_EQ(text.find("hpa_controller_reconcile_failing{"), std::string::npos) << text;
  EXPECT_TRUE(has(text, "# TYPE hpa_controller_reconcile_failing gauge")) << text;
}

TEST(DecisionMetrics, ExportsTheForecastAndItsFloorWhileThereIsOne) {
  DecisionMetrics metrics;
  auto o = outcome(3, 6, 4, DecisionLimit::Forecast, true, std::nullopt);
  o.forecast = DecisionOutcome::Forecast{"cpu", 2.5, 6};
  metrics.record("shop", "web", o);
  std::string text = scrape(metrics);
  EXPECT_TRUE(has(
      text, R"(hpa_controller_limited_by{name="web",namespace="shop",limited_by="forecast"} 1)"))
      << text;
  EXPECT_TRUE(
      has(text, R"(hpa_controller_forecast_value{name="web",namespace="shop",metric="cpu"} 2.5)"))
      << text;
  EXPECT_TRUE(has(text, R"(hpa_controller_forecast_floor_replicas{name="web",namespace="shop"} 6)"))
      << text;
  // The forecast goes (no history any more): so do its series.
  o.forecast.reset();
  metrics.record("shop", "web", o);
  text = scrape(metrics);
  EXPECT_EQ(text.find("hpa_controller_forecast_value{"), std::string::npos) << text;
  EXPECT_EQ(text.find("hpa_controller_forecast_floor_replicas{"), std::string::npos) << text;
  EXPECT_TRUE(has(text, "# TYPE hpa_controller_forecast_value gauge")) << text;
  // ... and with the HPA.
  o.forecast = DecisionOutcome::Forecast{"cpu", 2.5, 6};
  metrics.record("shop", "web", o);
  metrics.forget("shop", "web");
  EXPECT_EQ(scrape(metrics).find("hpa_controller_forecast_value{"), std::string::npos);
}

}  // namespace
}  // namespace hpa::telemetry
