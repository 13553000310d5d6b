#pragma once

// A metric's history for the forecast control's tests: a series built in the test, handed out
// as a source would (the samples at or before the instant asked for, a version), or an error.

#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "controls/forecast_history.h"

namespace hpa::testing {

// base + amplitude * sin(2 pi (t - from) / 24h), one sample every `step` in [from, to]: a load
// with a clean daily cycle, lowest at from + 18h and highest at from + 6h of each day.
inline std::vector<forecast::Sample> dailyCycle(Time from, Time to, Duration step, double base,
                                                double amplitude) {
  std::vector<forecast::Sample> out;
  const double day = std::chrono::duration<double>(std::chrono::hours(24)).count();
  for (Time t = from; t <= to; t += step) {
    const double phase = std::chrono::duration<double>(t - from).count() / day;
    out.push_back({t, base + amplitude * std::sin(2 * std::numbers::pi * phase)});
  }
  return out;
}

class FakeForecastHistory final : public controls::ForecastHistory {
 public:
  Result<controls::History> history(const controls::HistoryRequest& request, Time now) override {
    ++calls;
    requests.push_back(request);
    if (error) return Error::of(*error);
    auto samples = std::make_shared<std::vector<forecast::Sample>>();
    for (const auto& s : series) {
      if (s.at <= now) samples->push_back(s);
    }
    return controls::History{std::move(samples), version};
  }
  void forget(const std::string& key) override { forgotten.push_back(key); }

  std::vector<forecast::Sample> series;
  std::uint64_t version = 1;
  std::optional<std::string> error;  // answered instead of the series
  int calls = 0;
  std::vector<controls::HistoryRequest> requests;
  std::vector<std::string> forgotten;
};

}  // namespace hpa::testing
