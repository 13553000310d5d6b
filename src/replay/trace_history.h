#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/time.h"
#include "controls/forecast_history.h"
#include "forecast/series.h"
#include "replay/trace.h"

namespace hpa::replay {

// The forecast's history in a replay: the trace's past as of the simulated instant, and never
// its future. The trace's series of the metric must be the workload's total (SeriesKind::Total);
// its milli-values are given in the metric's unit (value / 1000).
//
// With a step (the forecast's grid), the history is what a Prometheus range query at that step
// returns, as the cluster's source reads it: at every instant of the step's grid (multiples of
// the step since the Unix epoch) within (now - range, now], the value the trace held then (its
// last sample at or before that instant). A grid instant's value is fixed once the instant has
// passed, so the history grows by one point per step and its version changes exactly then. With
// no step, the samples themselves within (now - range, now].
class TraceHistory final : public controls::ForecastHistory {
 public:
  // `origin` is the simulated instant of the trace's offset 0.
  TraceHistory(const Trace& trace, Time origin) : trace_(trace), origin_(origin) {}

  Result<controls::History> history(const controls::HistoryRequest& request, Time now) override;

 private:
  // The points served for one request, as of the newest grid instant (or sample) they reach.
  struct Served {
    std::string metric;
    Duration step{0};
    Duration range{0};
    std::optional<Time> newest;  // nullopt: nothing visible yet
    controls::History history;
  };

  std::vector<forecast::Sample> gridPoints(const Series& series, const Served* previous,
                                           const controls::HistoryRequest& request, Time now) const;
  std::vector<forecast::Sample> rawSamples(const Series& series, Duration range, Time now) const;

  const Trace& trace_;
  const Time origin_;
  std::optional<Served> served_;  // the last answer: replay runs one HPA
  std::uint64_t version_ = 0;
};

}  // namespace hpa::replay
