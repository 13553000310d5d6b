#include "adapters/cached_owner_lookup.h"

namespace hpa::adapters {

Result<std::optional<api::OwnerReference>> CachedOwnerLookup::controllerOf(
    const std::string& ns, const std::string& kind, const std::string& name) const {
  // Kinds without a cache (a custom resource owning pods) end the chain.
  if (!caches_.ensure(kind)) return std::optional<api::OwnerReference>();
  if (!caches_.hasSynced(kind)) return Error::format("the {} cache has not synced yet", kind);
  auto workload = caches_.get(kind, ns, name);
  if (!workload) return std::optional<api::OwnerReference>();
  return workload->controllerRef;
}

}  // namespace hpa::adapters
