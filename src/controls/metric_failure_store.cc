#include "controls/metric_failure_store.h"

namespace hpa::controls {

FailureRun MetricFailureStore::failed(const std::string& key, std::size_t metric,
                                      std::size_t metricCount, Time now) {
  std::lock_guard lock(mu_);
  auto& runs = runs_[key];
  if (runs.size() != metricCount) runs.assign(metricCount, std::nullopt);
  if (metric >= runs.size()) return FailureRun{now, 1};
  auto& run = runs[metric];
  if (!run) run = FailureRun{now, 0};
  ++run->failures;
  return *run;
}

void MetricFailureStore::succeeded(const std::string& key, std::size_t metric) {
  std::lock_guard lock(mu_);
  auto it = runs_.find(key);
  if (it == runs_.end() || metric >= it->second.size()) return;
  it->second[metric].reset();
}

void MetricFailureStore::erase(const std::string& key) {
  std::lock_guard lock(mu_);
  runs_.erase(key);
}

}  // namespace hpa::controls
