#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/labels.h"
#include "common/time.h"

namespace hpa::api {

// A resource amount in milli-units (requests are summed as milli-values upstream).
struct ResourceAmount {
  std::string name;
  std::int64_t milli = 0;
  bool operator==(const ResourceAmount&) const = default;
};
using ResourceAmounts = std::vector<ResourceAmount>;

// Finds `name` in a resource list; nullopt when absent.
std::optional<std::int64_t> findResource(const ResourceAmounts& list, std::string_view name);

struct ContainerRequests {
  std::string name;
  ResourceAmounts requests;
  bool restartPolicyAlways = false;  // init containers with restartPolicy: Always are sidecars
  bool operator==(const ContainerRequests&) const = default;
};

struct PodReadyCondition {
  std::string status;  // "True", "False", "Unknown"
  std::optional<Time> lastTransitionTime;
  bool operator==(const PodReadyCondition&) const = default;
};

inline constexpr const char* kPodPending = "Pending";
inline constexpr const char* kPodRunning = "Running";
inline constexpr const char* kPodSucceeded = "Succeeded";
inline constexpr const char* kPodFailed = "Failed";

// The lean projection of a core/v1 Pod that the HPA needs: identity, labels, phase, timing,
// readiness and resource requests. Caches hold this, not whole Pods.
struct Pod {
  std::string name;
  std::string namespace_;
  std::string resourceVersion;
  Labels labels;
  std::string phase;
  std::optional<Time> deletionTimestamp;
  std::optional<Time> startTime;
  std::optional<PodReadyCondition> ready;
  std::vector<ContainerRequests> containers;
  std::vector<ContainerRequests> initContainers;
  std::optional<ResourceAmounts> podRequests;  // spec.resources.requests (pod-level resources)
  ResourceAmounts overhead;                    // spec.overhead
  bool operator==(const Pod&) const = default;

  // Approximate bytes this object occupies, heap included (for cache accounting).
  size_t footprintBytes() const;
};

}  // namespace hpa::api
