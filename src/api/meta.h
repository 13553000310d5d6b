#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/time.h"

namespace hpa::api {

// The prefix of the annotations hpa-controller reads and writes (controls, persisted history).
inline constexpr const char* kControllerAnnotationPrefix = "hpa-controller.io/";

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

// "namespace/name", the key of namespaced objects in caches and queues.
inline std::string objectKey(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

}  // namespace hpa::api
