// Compiled to be read, not run: tests/api/CMakeLists.txt checks that this object holds prefetch
// instructions. A walk as Reconcile::listPods makes it; if the compiler deletes the prefetches
// (api/pod_prefetch.h says how GCC did), every reconcile pays its pods' misses one by one again.
#include <cstddef>
#include <memory>
#include <vector>

#include "api/pod_prefetch.h"

namespace hpa::api {

std::size_t podPrefetchProbe(const std::vector<std::shared_ptr<const Pod>>& pods);

std::size_t podPrefetchProbe(const std::vector<std::shared_ptr<const Pod>>& pods) {
  const PodListPrefetcher prefetch(pods);
  std::size_t named = 0;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    prefetch.before(i);
    named += pods[i]->name.size();
  }
  return named;
}

}  // namespace hpa::api
