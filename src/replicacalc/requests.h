#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/pod.h"
#include "common/result.h"

namespace hpa::replicacalc {

// Which requests a pod's utilization is computed against.
enum class RequestsSource {
  Spec,      // spec requests, as upstream
  Actuated,  // what the kubelet reports as actuated (in-place resize), spec where it reports none
};

// One pod's request for a resource, in milli-units.
// Pod-level requests (spec.resources, gate PodLevelResources) win when no container is named;
// otherwise containers plus sidecar init containers are summed, each needing a request.
Result<std::int64_t> podRequest(const api::Pod& pod, std::string_view container, std::string_view resource);

}  // namespace hpa::replicacalc
