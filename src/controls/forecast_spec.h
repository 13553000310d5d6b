#pragma once

// The hpa-controller.io/forecast control's annotation: which metric of the HPA is forecast, from
// which history, how far ahead, with which of the forecast's parameters, and whether the floor
// the forecast makes acts (Active) or is only shown (Preview, the default). A YAML or JSON object;
// every key is optional:
//
//   hpa-controller.io/forecast: |
//     mode: Active          # Preview (default) | Active
//     metric: cpu           # a resource (cpu, memory) or a metric's name; default: the first
//     query: 'sum(rate(container_cpu_usage_seconds_total{...}[5m]))'   # the metric's TOTAL
//     lead: 4m              # default: computed from the pods' start-up
//     forgetBefore: 2026-11-20T00:00:00Z
//     cycles: 4
//     quantile: 0.5
//     margin: 1.05
//     minStrength: 0.5
//     trend: Ratio          # Ratio | Difference | None
//     recent: 2h            # 0s: never moved by the recent load
//
// The parameters left out keep ForecastOptions' defaults (forecast/forecaster.h).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "api/hpa.h"
#include "common/result.h"
#include "common/time.h"
#include "forecast/forecaster.h"

namespace hpa::controls {

inline constexpr const char* kForecastAnnotation = "hpa-controller.io/forecast";

// The longest lead the annotation may ask for: a forecast further ahead is a schedule's job.
inline constexpr Duration kMaxForecastLead = std::chrono::hours(6);
// The longest stretch of recent load the forecast checks itself against: a day is a cycle's worth.
inline constexpr Duration kMaxForecastRecent = std::chrono::hours(24);

enum class ForecastMode {
  Preview,  // compute and show everything, change nothing
  Active,   // the floor acts on the decision
};
const char* forecastModeName(ForecastMode mode);
const char* trendName(forecast::TrendAdjustment trend);

struct ForecastSpec {
  ForecastMode mode = ForecastMode::Preview;
  std::size_t metricIndex = 0;   // which of spec.metrics
  std::string metric;            // its name as the annotation and the history name it
  std::string query;             // the annotation's, or the default built for cpu and memory
  bool defaultQuery = false;     // `query` was built, not given
  std::optional<Duration> lead;  // nullopt: computed from the pods' start-up
  // The forecast's parameters the annotation sets (nullopt: ForecastOptions' default).
  std::optional<int> cycles;
  std::optional<double> quantile;
  std::optional<double> margin;
  std::optional<double> minStrength;
  std::optional<forecast::TrendAdjustment> trend;
  std::optional<Time> forgetBefore;
  std::optional<Duration> recent;
  bool operator==(const ForecastSpec&) const = default;

  // ForecastOptions' defaults with what the annotation sets.
  forecast::ForecastOptions options() const;
};

// Reads the annotation against the HPA's spec.metrics (the metric must exist and have a
// Utilization or AverageValue target) and its target (the default query's pod names). The error
// says what is wrong in the user's terms.
Result<ForecastSpec> parseForecast(std::string_view text, const api::HorizontalPodAutoscaler& hpa);

// The PromQL for a resource metric's total over the target's pods from cAdvisor's series, or ""
// for a resource without one (only cpu and memory have).
std::string defaultForecastQuery(const std::string& resource, const std::string& container,
                                 const std::string& ns, const std::string& targetName);

// The forecast and its confidence as the condition, the recorded decision and the metrics'
// words show them: two significant digits, and one decimal, so that what is written changes
// only when its content does, not with every step of the forecast.
double roundForecastValue(double value);
double roundConfidence(double confidence);
// What moved a forecast, as the condition and `explain` say it: "lowered: the last 2h0m0s ran at
// 45 % of its forecast", or "raised: ... at 112 %" (`ratio` the recent load over its forecast, in
// whole percent).
std::string recentWords(double ratio, Duration recent);

// "Active on cpu", for the shadow's list of controls that change a decision.
std::string describeForecast(const ForecastSpec& spec);

}  // namespace hpa::controls
