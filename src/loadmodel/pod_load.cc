#include "loadmodel/pod_load.h"

#include <algorithm>
#include <cmath>

namespace hpa::loadmodel {

std::int64_t readyPodShare(std::int64_t total, int readyPods, double factor) {
  const double share = static_cast<double>(total) / std::max(readyPods, 1);
  return static_cast<std::int64_t>(std::llround(share * factor));
}

std::optional<std::int64_t> podValue(const Demand& demand, bool podReady, int readyPods,
                                     double factor) {
  if (!podReady) return demand.startup;
  if (demand.spread == Spread::PerPod) return readyPodShare(demand.value, 1, factor);
  return readyPodShare(demand.value, readyPods, factor);
}

}  // namespace hpa::loadmodel
