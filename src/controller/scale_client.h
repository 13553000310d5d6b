#pragma once

#include <string>
#include <vector>

#include "api/scale.h"
#include "common/result.h"

namespace hpa::controller {

// A resource of the API (group "" is the core group), e.g. {"apps", "v1", "deployments"}.
struct GroupVersionResource {
  std::string group;
  std::string version;
  std::string resource;
  bool operator==(const GroupVersionResource&) const = default;
};

// Access to the `/scale` subresource of scale targets: upstream's RESTMapper plus scale client.
class ScaleClient {
 public:
  virtual ~ScaleClient() = default;
  // Every mapping of group/kind, preferred version first (the version of the HPA's
  // scaleTargetRef.apiVersion is ignored, as upstream ignores it).
  virtual Result<std::vector<GroupVersionResource>> mappingsFor(const std::string& group,
                                                                const std::string& kind) = 0;
  virtual Result<api::Scale> getScale(const std::string& ns, const GroupVersionResource& resource,
                                      const std::string& name) = 0;
  // PUT of the Scale (carrying the resourceVersion it was read with); returns the stored Scale.
  virtual Result<api::Scale> updateScale(const std::string& ns,
                                         const GroupVersionResource& resource,
                                         const api::Scale& scale) = 0;
};

}  // namespace hpa::controller
