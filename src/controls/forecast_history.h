#pragma once

// The seam between the forecast control and where a metric's history comes from: Prometheus
// range queries in a cluster (src/adapters/), the trace's past in replay (src/replay), a fake in
// tests. The control knows only this interface.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/prometheus_matrix.h"
#include "common/result.h"
#include "common/time.h"
#include "forecast/series.h"

namespace hpa::controls {

// What the forecast control asks for: the total of one metric of one HPA over its target's
// pods (not a per-pod average: the total is what the load is, whatever the replica count).
struct HistoryRequest {
  std::string key;     // the HPA's namespace/name
  std::string metric;  // as spec.metrics names it: a resource ("cpu") or the metric's name
  std::string query;   // the PromQL whose value is that total (the control's, or its default)
  Duration range{0};   // how far back the forecast reads (its maximum history)
  Duration step{0};    // the resolution of the forecast's grid: finer samples are not needed
  bool operator==(const HistoryRequest&) const = default;
};

struct History {
  // In time order, in the metric's unit (cpu: cores), none after the instant asked for. Shared:
  // a cache hands the same vector to every reconcile until it refreshes.
  std::shared_ptr<const std::vector<forecast::Sample>> samples;
  // Changes whenever `samples` does: a forecast made from the same version for the same instant
  // bucket can be reused.
  std::uint64_t version = 0;
};

// The samples of a Prometheus range query's answer: at each instant where a series had a value,
// the sum of those values in the metric's unit; instants without one are gaps. The cluster's
// history and explain's --forecast-history read an answer alike.
std::vector<forecast::Sample> samplesOf(const api::PrometheusMatrix& matrix);

class ForecastHistory {
 public:
  virtual ~ForecastHistory() = default;
  // The history as of `now`, from what the source holds: the daemon's never waits on the network
  // (it refreshes in the background and answers from its cache; explain, a one-off, may wait for
  // its one read). An error says why
  // there is none, in words a condition message can carry (the source unreachable, the query
  // failing, not fetched yet).
  virtual Result<History> history(const HistoryRequest& request, Time now) = 0;
  // The HPA was deleted or no longer asks for a forecast: what is held for it may go.
  virtual void forget(const std::string& /*key*/) {}
};

}  // namespace hpa::controls
