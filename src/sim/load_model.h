#pragma once

#include <nlohmann/json.hpp>

#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "api/labels.h"
#include "api/label_selector.h"
#include "sim/scenario.h"

namespace hpa::sim {

// A pod as the simulator sees it in the cluster.
struct SimPod {
  std::string namespace_;
  std::string name;
  api::Labels labels;
  bool ready = false;
  std::vector<std::string> containers;
};

struct PodUsage {
  const SimPod* pod = nullptr;
  std::int64_t cpuMilli = 0;
  std::int64_t memoryBytes = 0;
};

// The load: each workload's total demand divided over its Ready pods (so scaling out lowers the
// per-pod usage, as real load does), with optional noise; pods not Ready report nothing (or
// the workload's start-up cpu). Thread-safe; steps and live changes go through apply().
class LoadModel {
 public:
  LoadModel(Scenario scenario, std::uint64_t seed);

  // Usage of every pod that reports metrics.
  std::vector<PodUsage> resourceUsage(const std::vector<SimPod>& pods);
  // custom.metrics.k8s.io per-pod metric for the Ready pods of its workload.
  std::vector<std::pair<const SimPod*, std::int64_t>> podMetric(const std::vector<SimPod>& pods, const std::string& ns,
                                                                const std::string& metric);
  std::optional<std::int64_t> objectMetric(const std::string& ns, const std::string& resource,
                                           const std::string& name, const std::string& metric);
  std::vector<ExternalMetricSpec> externalMetric(const std::string& ns, const std::string& metric,
                                                 const api::Selector& selector);

  Status apply(const Step& step);
  // The steps due between `from` (exclusive) and `to` (inclusive) of the timeline.
  std::vector<Step> dueSteps(Duration from, Duration to) const;
  nlohmann::json state(const std::vector<SimPod>& pods);

 private:
  const Workload* workloadOf(const SimPod& pod) const;
  int readyCount(const std::vector<SimPod>& pods, const Workload& w) const;
  double noisy(double value, double noise);

  mutable std::mutex mu_;
  Scenario scenario_;
  std::vector<api::Selector> selectors_;  // per workload
  std::mt19937_64 random_;
};

}  // namespace hpa::sim
