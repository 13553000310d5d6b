#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "kube/rest_client.h"

namespace hpa::kube {

struct GroupVersionResource {
  std::string group;
  std::string version;
  std::string resource;
  bool operator==(const GroupVersionResource&) const = default;
};

struct ApiResource {
  std::string name;  // "deployments", or "deployments/scale" for a subresource
  std::string kind;
  bool namespaced = false;
  std::vector<std::string> verbs;
};

// The API server's discovery documents (/api, /apis, /apis/<group>/<version>), cached until
// invalidate(): which versions of a group are served (preferred first), which resources each
// serves with which subresources. Thread-safe.
class Discovery {
 public:
  explicit Discovery(RestClient& client) : client_(client) {}

  // Versions of `group` ("" = core), the server's preferred first; empty if the group is not
  // served.
  Result<std::vector<std::string>> versions(const std::string& group);
  // The first of `candidates` the server serves for `group`, else an error naming them.
  Result<std::string> pickVersion(const std::string& group,
                                  const std::vector<std::string>& candidates);
  Result<std::vector<ApiResource>> resources(const std::string& group, const std::string& version);
  // The resources of kind `kind` in `group`, in the group's version preference order (the
  // scaleTargetRef's version is ignored, as upstream's RESTMapper does).
  Result<std::vector<GroupVersionResource>> mappingsFor(const std::string& group,
                                                        const std::string& kind);
  // Whether `resource` of group/version has the subresource (e.g. "scale").
  Result<bool> hasSubresource(const GroupVersionResource& gvr, const std::string& subresource);

  void invalidate();

 private:
  Result<std::map<std::string, std::vector<std::string>>> groups();

  RestClient& client_;
  std::mutex mu_;
  std::optional<std::map<std::string, std::vector<std::string>>> groups_;
  std::map<std::string, std::vector<ApiResource>> resources_;  // by group/version
};

// "/api/v1" or "/apis/<group>/<version>".
std::string groupVersionPath(const std::string& group, const std::string& version);

// The API server's release, as GET /version answers it (readable without authorization).
struct ServerVersion {
  std::string major;       // "1"
  std::string minor;       // "20", or "20+" as some providers report it
  std::string gitVersion;  // "v1.20.2", "v1.30.4-eks-a737599"
  // The minor release number from `minor`, or from gitVersion when `minor` has none; nullopt
  // for anything but a 1.x release.
  std::optional<int> minorRelease() const;
};
Result<ServerVersion> serverVersion(RestClient& client);

}  // namespace hpa::kube
