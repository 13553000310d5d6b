#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "api/resources.h"
#include "api/word.h"
#include "common/time.h"

namespace hpa::api {

struct ContainerRequests {
  std::string name;
  // spec requests, with the actuated values of a resize in progress and the spec limits
  ResourceList requests;
  bool restartPolicyAlways = false;  // init containers with restartPolicy: Always are sidecars
  bool operator==(const ContainerRequests&) const = default;
};

// The controlling owner of a pod (metadata.ownerReferences[controller=true]): kind and name are
// what an owner chain is walked with within the namespace (uid and apiVersion are not kept, to
// keep the cached pod small).
struct PodOwner {
  std::string kind;
  std::string name;
  bool operator==(const PodOwner&) const = default;
};

struct PodReadyCondition {
  ConditionStatus status;  // "True", "False", "Unknown"
  std::optional<Time> lastTransitionTime;
  bool operator==(const PodReadyCondition&) const = default;
};

inline constexpr const char* kPodPending = "Pending";
inline constexpr const char* kPodRunning = "Running";
inline constexpr const char* kPodSucceeded = "Succeeded";
inline constexpr const char* kPodFailed = "Failed";

// The lean projection of a core/v1 Pod that the HPA needs: identity, labels, phase, timing,
// readiness and resource requests (as in spec, and as actuated where an in-place resize has not
// caught up: status.containerStatuses[].resources.requests) and limits (spec's). Caches hold
// this, not whole Pods.
//
// The fields every reconcile reads of each of its pods come first, so that they share as few
// cache lines as they can: at scale each pod is a cache miss per line touched.
struct Pod {
  std::string name;
  Labels labels;  // read by the ambiguous-selector check
  PodPhase phase;
  std::optional<Time> creationTimestamp;
  std::optional<Time> deletionTimestamp;
  std::optional<Time> startTime;
  std::optional<PodReadyCondition> ready;
  std::vector<ContainerRequests> containers;
  std::vector<ContainerRequests> initContainers;
  // spec.resources (pod-level resources): requests, and limits in the same list
  std::optional<ResourceList> podRequests;
  ResourceList overhead;  // spec.overhead
  std::string namespace_;
  std::string resourceVersion;
  std::optional<PodOwner> controller;  // for owner-based pod selection
  bool operator==(const Pod&) const = default;

  // Approximate bytes this object occupies, heap included (for cache accounting).
  size_t footprintBytes() const;
};

// The name a cache keys a pod by (a view of the pod's own, see informer::ObjectCache).
inline std::string_view cachedName(const Pod& pod) { return pod.name; }

// Pods as a lister hands them out: one immutable list its readers share (an index entry's
// snapshot), so that passing a workload's pods around costs one reference count, not one per pod.
using SharedPods = std::shared_ptr<const std::vector<std::shared_ptr<const Pod>>>;

}  // namespace hpa::api
