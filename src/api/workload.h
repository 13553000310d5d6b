#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/scale.h"
#include "common/result.h"

namespace hpa::api {

// The workload kinds whose `/scale` subresource the API server derives from the object itself,
// so a cached object answers what a GET of `/scale` would.
inline constexpr const char* kDeployment = "Deployment";
inline constexpr const char* kStatefulSet = "StatefulSet";
inline constexpr const char* kReplicaSet = "ReplicaSet";
inline constexpr const char* kReplicationController = "ReplicationController";

// The lean projection of a Deployment, StatefulSet, ReplicaSet or ReplicationController: what
// its `/scale` subresource shows, plus the identity and controlling owner that owner chains
// (Pod -> ReplicaSet -> Deployment) are resolved with. Caches hold this, not whole objects.
struct Workload {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resourceVersion;
  std::optional<Time> creationTimestamp;
  std::int32_t specReplicas = 1;  // the API server defaults an absent spec.replicas to 1
  std::int32_t statusReplicas = 0;
  std::string selector;  // the `/scale` status.selector: spec.selector in its string form
  std::optional<OwnerReference> controllerRef;
  bool operator==(const Workload&) const = default;
};

// Decodes a workload of `kind` (one of the four above); a ReplicationController's selector is a
// plain label map, the others' a LabelSelector. Errors name the field.
Result<Workload> decodeWorkload(const nlohmann::json& object, const std::string& kind);

// The autoscaling/v1 Scale the API server's `/scale` subresource returns for the workload.
Scale scaleOf(const Workload& workload);

// The four kinds with their group, preferred version and resource ({"apps", "v1",
// "deployments", "Deployment"}, ...): what every cluster's discovery maps them to.
struct BuiltinWorkload {
  const char* group;
  const char* version;
  const char* resource;
  const char* kind;
};
const std::vector<BuiltinWorkload>& builtinWorkloads();
// The built-in workload of a group/kind or of a group/resource; nullptr for any other.
const BuiltinWorkload* builtinWorkloadByKind(const std::string& group, const std::string& kind);
const BuiltinWorkload* builtinWorkloadByResource(const std::string& group,
                                                 const std::string& resource);

}  // namespace hpa::api
