#pragma once

#include <optional>
#include <string>

#include "api/meta.h"
#include "common/result.h"

namespace hpa::controls {

// The controlling owners of workloads, for owner-based pod selection (a pod's ReplicaSet leads to
// its Deployment): the controller reference of the `kind` object ns/name, nullopt when it has
// none or does not exist, an error when the answer is not known yet (a cache still syncing).
class OwnerLookup {
 public:
  virtual ~OwnerLookup() = default;
  virtual Result<std::optional<api::OwnerReference>> controllerOf(
      const std::string& ns, const std::string& kind, const std::string& name) const = 0;
};

}  // namespace hpa::controls
