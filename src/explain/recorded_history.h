#pragma once

// explain --forecast-history: the history a forecast reads when explain has no Prometheus of its
// own to ask, from a range query's answer saved to a file.

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "controls/forecast_history.h"
#include "forecast/series.h"

namespace hpa::explain {

// The samples of /api/v1/query_range's JSON (what curl or `promtool query range -o json` print),
// its series summed per timestamp, in the metric's unit; instants where no series had a value
// are gaps. Errors name the file's JSON path, or say that it holds no sample.
Result<std::vector<forecast::Sample>> readRecordedHistory(const std::string& text);

// Serves those samples to every forecast, as of the instant asked for: none after it, none
// older than the range the forecast reads.
class RecordedHistory : public controls::ForecastHistory {
 public:
  explicit RecordedHistory(std::shared_ptr<const std::vector<forecast::Sample>> samples)
      : samples_(std::move(samples)) {}
  Result<controls::History> history(const controls::HistoryRequest& request, Time now) override;

 private:
  std::shared_ptr<const std::vector<forecast::Sample>> samples_;
};

}  // namespace hpa::explain
