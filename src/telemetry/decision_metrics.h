#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "report/decision_outcome.h"

namespace hpa::telemetry {

// Each HPA's last decision, labelled {namespace, name}, in Prometheus' text format:
//   hpa_controller_current_replicas, hpa_controller_desired_replicas,
//   hpa_controller_proposed_replicas (absent while no metric proposes),
//   hpa_controller_limited_by{limited_by} 1 (one series: the limit of the last decision),
//   hpa_controller_scaling_active (1 or 0),
//   hpa_controller_metrics_read_timestamp_seconds (absent until a metric was read),
//   hpa_controller_reconcile_failing{reason} 1 (only while its last reconcile failed; reason:
//     upstream's Event reason for the failure, or TargetNotFound; DecisionOutcome::failingReason),
//   hpa_controller_forecast_value{metric} and hpa_controller_forecast_floor_replicas (only while
//     its hpa-controller.io/forecast has a forecast, and a floor).
// At most six series per HPA whose reconciles succeed, seven for one failing, two more for one
// with a forecast; an HPA's series go when it is forgotten.
//
// These are most of /metrics at scale (six of the eight series per HPA), so they are kept as
// plain values with each HPA's label text rendered once, and written straight into the scrape's
// text instead of going through prometheus-cpp's per-series objects and copies. Thread-safe.
class DecisionMetrics {
 public:
  void record(const std::string& ns, const std::string& name,
              const report::DecisionOutcome& outcome);
  void forget(const std::string& ns, const std::string& name);

  // Appends the families (HELP, TYPE and every HPA's series) to `out`.
  void render(std::string& out) const;

 private:
  struct Series {
    std::string
        labels;  // name="...",namespace="..." (escaped), rendered when the HPA is first seen
    report::DecisionOutcome outcome;
  };

  mutable std::mutex mu_;
  std::unordered_map<std::string, Series> series_;  // by "namespace/name"
};

}  // namespace hpa::telemetry
