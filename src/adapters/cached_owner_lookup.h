#pragma once

#include "controller/listers.h"
#include "controls/owner_lookup.h"
#include "informer/workload_caches.h"

namespace hpa::adapters {

// Owner chains from the workload caches (a pod's ReplicaSet leads to its Deployment), so
// owner-based pod selection costs no request per reconcile. A kind's cache starts on its first
// lookup; until it has synced the answer is an error (the metric fails for this sync, as a
// missing pod list would), never a guess.
class CachedOwnerLookup final : public controls::OwnerLookup {
 public:
  explicit CachedOwnerLookup(informer::WorkloadCaches& caches) : caches_(caches) {}
  Result<std::optional<api::OwnerReference>> controllerOf(const std::string& ns,
                                                          const std::string& kind,
                                                          const std::string& name) const override;

 private:
  informer::WorkloadCaches& caches_;
};

}  // namespace hpa::adapters
