#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/time.h"

namespace hpa::api {

// The prefix of the annotations hpa-controller reads and writes (controls, persisted history).
inline constexpr const char* kControllerAnnotationPrefix = "hpa-controller.io/";

// The field manager of hpa-controller's writes in metadata.managedFields: the API server takes it
// from the User-Agent's first token, which kube/rest_client.cc builds from this.
inline constexpr const char* kFieldManager = "hpa-controller";

// The part of metav1.ObjectMeta the controller reads or writes back.
struct ObjectMeta {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string resourceVersion;
  std::int64_t generation = 0;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::optional<Time> creationTimestamp;
  std::optional<Time> deletionTimestamp;
  bool operator==(const ObjectMeta&) const = default;
};

// A write of an object's status as an entry of metadata.managedFields records it: the entry's
// field manager and time (second resolution). The entries that write status are those whose
// fieldsV1 holds a top-level f:status, or whose subresource is status (1.22+ servers; 1.20's
// entries have no subresource).
struct StatusWrite {
  std::string manager;
  Time time;
  bool operator==(const StatusWrite&) const = default;
};

// An entry of metadata.ownerReferences; the one with controller: true is an object's
// controlling owner (a Pod's ReplicaSet, a ReplicaSet's Deployment).
struct OwnerReference {
  std::string apiVersion;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool operator==(const OwnerReference&) const = default;
};

// An object named by kind, name and apiVersion (autoscaling's CrossVersionObjectReference): an
// HPA's scale target, an Object metric's described object.
struct CrossVersionObjectReference {
  std::string kind;
  std::string name;
  std::string apiVersion;
  bool operator==(const CrossVersionObjectReference&) const = default;
};

// "namespace/name", the key of namespaced objects in caches and queues.
inline std::string objectKey(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

// The namespace and name of an objectKey: a key without '/' is a name without a namespace. The
// first '/' splits, as client-go's SplitMetaNamespaceKey does (names never hold one).
inline std::pair<std::string, std::string> splitObjectKey(std::string_view key) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos) return {"", std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

// The API group of an apiVersion: "apps" of "apps/v1", "" (the core group) of "v1".
inline std::string apiGroupOf(std::string_view apiVersion) {
  const auto slash = apiVersion.find('/');
  return slash == std::string_view::npos ? "" : std::string(apiVersion.substr(0, slash));
}

// The apiVersion of a group and version: "apps/v1", or "v1" in the core group.
inline std::string apiVersionOf(std::string_view group, std::string_view version) {
  return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
}

}  // namespace hpa::api
