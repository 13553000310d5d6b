#include "adapters/workload_cache_warmer.h"

#include "controls/hpa_controls.h"

namespace hpa::adapters {
namespace {

void warm(informer::WorkloadCaches& caches, const api::HorizontalPodAutoscaler& hpa) {
  // ensure() ignores kinds without a cache (custom resources scale through /scale alone).
  caches.ensure(hpa.spec.scaleTargetRef.kind);
  if (controls::parseControls(hpa).podSelection == controls::PodSelection::OwnerReferences) {
    caches.ensure("ReplicaSet");
  }
}

}  // namespace

informer::EventHandlers<api::HorizontalPodAutoscaler> warmWorkloadCaches(
    informer::WorkloadCaches& caches) {
  using Ptr = std::shared_ptr<const api::HorizontalPodAutoscaler>;
  return {[&caches](const Ptr& hpa) { warm(caches, *hpa); },
          [&caches](const Ptr& old, const Ptr& hpa) {
            // The resync re-announces every HPA each period: only a changed spec can need more.
            if (old != hpa) warm(caches, *hpa);
          },
          nullptr};
}

}  // namespace hpa::adapters
