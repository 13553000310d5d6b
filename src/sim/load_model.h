#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "api/label_selector.h"
#include "api/labels.h"
#include "sim/pod_index.h"
#include "sim/scenario.h"

namespace hpa::sim {

struct PodUsage {
  const SimPod* pod = nullptr;
  std::int64_t cpuMilli = 0;
  std::int64_t memoryBytes = 0;
};

// The load: each workload's total demand divided over its Ready pods (so scaling out lowers the
// per-pod usage, as real load does), with optional noise; pods not Ready report nothing (or
// the workload's start-up cpu). The spreading, its rounding and the start-up rule are the load
// model replay uses too (loadmodel/pod_load.h). Thread-safe; steps and live changes go through
// apply(). Workloads and their selectors are fixed at construction (steps change values only), so a
// pod's workload depends on its namespace and labels alone (classify).
class LoadModel {
 public:
  LoadModel(Scenario scenario, std::uint64_t seed);

  // The index of the first workload of `ns` whose selector matches, -1 if none.
  int classify(const std::string& ns, const api::Labels& labels) const;
  int workloadCount() const { return static_cast<int>(selectors_.size()); }

  // Usage of every selected pod that reports metrics.
  std::vector<PodUsage> resourceUsage(const std::vector<PodView>& pods);
  // The same for a plain list of pods (workloads and Ready counts taken from the list itself).
  std::vector<PodUsage> resourceUsage(const std::vector<SimPod>& pods);
  // custom.metrics.k8s.io per-pod metric of the selected Ready pods, their workload's total
  // spread over its Ready pods.
  std::vector<std::pair<const SimPod*, std::int64_t>> podMetric(const std::vector<PodView>& pods,
                                                                const std::string& ns,
                                                                const std::string& metric);
  std::optional<std::int64_t> objectMetric(const std::string& ns, const std::string& resource,
                                           const std::string& name, const std::string& metric);
  std::vector<ExternalMetricSpec> externalMetric(const std::string& ns, const std::string& metric,
                                                 const api::Selector& selector);

  Status apply(const Step& step);
  // Applies every step, or none when one fails.
  Status apply(const std::vector<Step>& steps);
  // The steps due between `from` (exclusive) and `to` (inclusive) of the timeline.
  std::vector<Step> dueSteps(Duration from, Duration to) const;
  // A model with this one's demands as they are now, which later steps do not change (a
  // metrics sample); its noise continues this one's random sequence.
  std::unique_ptr<LoadModel> frozen() const;
  // Every workload's demand with its pod counts (`counts` by workload index, as PodIndex keeps
  // them).
  nlohmann::json state(const std::vector<WorkloadCount>& counts);

 private:
  // A factor within 1 +- noise (1 without noise) for one pod sample.
  double noiseFactor(double noise);

  mutable std::mutex mu_;
  Scenario scenario_;
  std::vector<api::Selector> selectors_;                 // per workload; fixed
  std::map<std::string, std::vector<int>> byNamespace_;  // workload indices per namespace; fixed
  std::mt19937_64 random_;
};

}  // namespace hpa::sim
