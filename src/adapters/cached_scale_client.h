#pragma once

#include <mutex>
#include <set>
#include <string>

#include "controller/scale_client.h"
#include "informer/workload_caches.h"

namespace hpa::adapters {

// The scale client the daemon reconciles with: the Scale of a built-in workload (Deployment,
// StatefulSet, ReplicaSet, ReplicationController) is built from the workload caches, as the API
// server builds `/scale` from the object, so a steady reconcile sends no GET. Everything else
// goes to `api`: discovery, the GET of other kinds' `/scale` (custom resources), a target not
// (yet) in the cache, and every update — a PUT of `/scale` carrying the cached resourceVersion,
// so a stale cache gets 409 Conflict. After a failed update the next read of that target is a
// live GET, which is what the reconcile's conflict retry needs.
class CachedScaleClient final : public controller::ScaleClient {
 public:
  CachedScaleClient(controller::ScaleClient& api, informer::WorkloadCaches& caches)
      : api_(api), caches_(caches) {}

  Result<std::vector<controller::GroupVersionResource>> mappingsFor(
      const std::string& group, const std::string& kind) override;
  Result<api::Scale> getScale(const std::string& ns,
                              const controller::GroupVersionResource& resource,
                              const std::string& name) override;
  Result<api::Scale> updateScale(const std::string& ns,
                                 const controller::GroupVersionResource& resource,
                                 const api::Scale& scale) override;

 private:
  static std::string keyOf(const std::string& ns, const controller::GroupVersionResource& r,
                           const std::string& name);

  controller::ScaleClient& api_;
  informer::WorkloadCaches& caches_;
  std::mutex mu_;
  std::set<std::string> readLive_;  // targets whose next read must bypass the cache
};

}  // namespace hpa::adapters
