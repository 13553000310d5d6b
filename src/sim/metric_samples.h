#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "common/time.h"
#include "sim/load_model.h"
#include "sim/pod_index.h"

namespace hpa::sim {

// The pods and the load as they were at one instant, for the metrics APIs to answer from.
struct MetricSample {
  MetricSample(std::unique_ptr<LoadModel> frozenModel, const std::vector<SimPod>& pods, Time taken);

  std::unique_ptr<LoadModel> model;
  PodIndex pods;  // classified by `model`, so declared after it
  Time at;
};

// Samples of the live pods and load, one per `resolution`, as metrics-server scrapes its nodes
// once per --metric-resolution and answers every read from the last scrape: two readers a moment
// apart see the same values, and a pod deleted or load moved since the scrape shows at the next
// one. Periods are counted from `origin`; a period's sample is taken at the first read within it
// and carries the period's start as its timestamp. Thread-safe.
class MetricSamples {
 public:
  MetricSamples(const PodIndex& livePods, const LoadModel& liveModel, Duration resolution,
                Time origin);

  // The sample of the period `now` falls in (the first period's while the clock is before it).
  std::shared_ptr<MetricSample> at(Time now);

 private:
  const PodIndex& livePods_;
  const LoadModel& liveModel_;
  const Duration resolution_;
  const Time origin_;
  std::mutex mu_;
  std::shared_ptr<MetricSample> current_;
};

}  // namespace hpa::sim
