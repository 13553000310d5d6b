#pragma once

#include <cstdint>
#include <optional>

namespace hpa::loadmodel {

// The load model replay and hpa-sim share: what the pods of a workload report of its demand.
// Both feed the controller through the same rules, so a replay of what hpa-sim served (the
// demo's recording) reads the same per-pod values the daemon read.

// How a demand value reaches the pods of its workload.
enum class Spread {
  Total,   // the workload's: its Ready pods share it evenly, so scaling out lowers each one's usage
  PerPod,  // each Ready pod's own
};

// A workload's demand for one quantity at one moment, in milli-units (hpa-sim's memory: bytes).
struct Demand {
  std::int64_t value = 0;
  Spread spread = Spread::Total;
  // What a pod reports before it is Ready (a starting process's cpu); nullopt: nothing, so the
  // controller sees a pod without a sample.
  std::optional<std::int64_t> startup;
};

// One Ready pod's share of a workload-wide total: the total over the Ready pods (at least one),
// scaled by `factor` (hpa-sim's noise; 1 for none), rounded to the unit with halves away from
// zero: usage is read at milli resolution, so 150m over 4 pods reads 38m each.
std::int64_t readyPodShare(std::int64_t total, int readyPods, double factor = 1.0);

// What one pod reports of `demand` while `readyPods` pods of its workload are Ready: a Ready pod
// its share of a total, or a per-pod value (scaled by `factor` and rounded the same way); a pod
// that is not Ready the start-up value, or nothing.
std::optional<std::int64_t> podValue(const Demand& demand, bool podReady, int readyPods,
                                     double factor = 1.0);

}  // namespace hpa::loadmodel
