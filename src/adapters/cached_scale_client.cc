#include "adapters/cached_scale_client.h"

namespace hpa::adapters {

std::string CachedScaleClient::keyOf(const std::string& ns,
                                     const controller::GroupVersionResource& r,
                                     const std::string& name) {
  return r.group + "/" + r.resource + "/" + ns + "/" + name;
}

Result<std::vector<controller::GroupVersionResource>> CachedScaleClient::mappingsFor(
    const std::string& group, const std::string& kind) {
  return api_.mappingsFor(group, kind);
}

Result<api::Scale> CachedScaleClient::getScale(const std::string& ns,
                                               const controller::GroupVersionResource& resource,
                                               const std::string& name) {
  const api::BuiltinWorkload* builtin =
      api::builtinWorkloadByResource(resource.group, resource.resource);
  if (builtin && caches_.ensure(builtin->kind)) {
    bool live = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      live = readLive_.erase(keyOf(ns, resource, name)) > 0;
    }
    if (!live) {
      if (auto workload = caches_.get(builtin->kind, ns, name)) return api::scaleOf(*workload);
    }
  }
  // Not cached (another kind, a cache still syncing, a target created a moment ago, or a
  // missing one): the API server answers, NotFound included.
  return api_.getScale(ns, resource, name);
}

Result<api::Scale> CachedScaleClient::updateScale(const std::string& ns,
                                                  const controller::GroupVersionResource& resource,
                                                  const api::Scale& scale) {
  auto stored = api_.updateScale(ns, resource, scale);
  if (!stored.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    readLive_.insert(keyOf(ns, resource, scale.metadata.name));
  }
  return stored;
}

}  // namespace hpa::adapters
