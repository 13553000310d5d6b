#include "sim/metric_samples.h"

namespace hpa::sim {

MetricSample::MetricSample(std::unique_ptr<LoadModel> frozenModel,
                           const std::vector<SimPod>& podList, Time taken)
    : model(std::move(frozenModel)),
      pods([m = model.get()](const std::string& ns, const api::Labels& labels) {
        return m->classify(ns, labels);
      }),
      at(taken) {
  for (const auto& p : podList) pods.upsert(p);
}

MetricSamples::MetricSamples(const PodIndex& livePods, const LoadModel& liveModel,
                             Duration resolution, Time origin)
    : livePods_(livePods),
      liveModel_(liveModel),
      resolution_(std::max(resolution, Duration(1))),
      origin_(origin) {}

std::shared_ptr<MetricSample> MetricSamples::at(Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  const Time periodStart =
      origin_ + ((std::max(now, origin_) - origin_) / resolution_) * resolution_;
  if (!current_ || current_->at < periodStart) {
    current_ = std::make_shared<MetricSample>(liveModel_.frozen(), livePods_.all(), periodStart);
  }
  return current_;
}

}  // namespace hpa::sim
