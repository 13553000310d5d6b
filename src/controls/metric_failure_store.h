#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "controls/fallback.h"

namespace hpa::controls {

// Per HPA and metric (its index in spec.metrics), the run of failed syncs the fallback control
// counts. Kept only for HPAs with a fallback, in memory: after a restart or a failover a run
// starts again, so a fallback is never reached sooner than its threshold says. Thread-safe.
class MetricFailureStore {
 public:
  // Counts one more failed sync of the metric; `metricCount` resets the runs of an HPA whose
  // metrics were changed. Returns the run, this failure included.
  FailureRun failed(const std::string& key, std::size_t metric, std::size_t metricCount, Time now);
  void succeeded(const std::string& key, std::size_t metric);
  void erase(const std::string& key);

 private:
  std::mutex mu_;
  std::map<std::string, std::vector<std::optional<FailureRun>>> runs_;  // guarded by mu_
};

}  // namespace hpa::controls
