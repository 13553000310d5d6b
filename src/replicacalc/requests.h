#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/pod.h"
#include "common/result.h"
#include "replicacalc/decision_rules.h"

namespace hpa::replicacalc {

// Which requests a pod's utilization is computed against.
enum class RequestsSource {
  Spec,      // spec requests, as upstream
  Actuated,  // what the kubelet reports as actuated (in-place resize), spec where it reports none
  Limits,    // spec limits, in place of requests (the same rules, a limit where a request was)
};

// One pod's request for a resource, in milli-units.
// Pod-level requests (spec.resources, gate PodLevelResources, since 1.34) win when no container
// is named; otherwise containers plus sidecar init containers (since 1.29) are summed, each
// needing a request. With `Actuated`, a container whose in-place resize has not caught up counts
// what the kubelet reports as actuated instead of its spec request (pod-level requests are
// always spec's). With `Limits`, each of those requests is the matching limit instead: a counted
// container without one fails as one without a request does; pod-level limits apply when pod-level
// resources do, and where they leave a resource out the containers' summed limits stand in only
// when every container has one (else the pod has no limit).
Result<std::int64_t> podRequest(const api::Pod& pod, std::string_view container,
                                std::string_view resource,
                                RequestsSource source = RequestsSource::Spec,
                                const DecisionRules& rules = DecisionRules{});

// Whether a container counted for `resource` has an actuated request different from spec (a
// resize in progress), so that the two sources give different requests.
bool resizeInProgress(const api::Pod& pod, std::string_view container, std::string_view resource);

}  // namespace hpa::replicacalc
