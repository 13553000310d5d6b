#pragma once

#include <cstdint>
#include <optional>

#include "api/hpa.h"
#include "common/result.h"
#include "explain/snapshot.h"
#include "replay/replay.h"

namespace hpa::replay {

// What the command line may say about the target instead of (or over) the files.
struct TargetFlags {
  std::optional<std::int32_t> replicas;            // --replicas: at the start
  std::optional<std::int64_t> cpuRequestMilli;     // --cpu-request, per container
  std::optional<std::int64_t> memoryRequestMilli;  // --memory-request, per container
};

// The HPA's scale target as the replay simulates it: the workload of the snapshot that the
// HPA's scaleTargetRef names (its replicas, selector and pod template), or, when the snapshot
// has none, a workload of that name at minReplicas whose pods have one container. Pod labels
// come from the template, else from the selector's equality terms. Resource metrics with a
// Utilization target need a request for their resource: a clear error when neither the
// template nor the flags give one.
Result<ReplayTarget> targetFor(const api::HorizontalPodAutoscaler& hpa,
                               const explain::Snapshot& snapshot, const TargetFlags& flags);

// Checks that a (possibly overridden) HPA can be replayed on `target`: the requests its
// Utilization targets need are there.
Status checkRequests(const api::HorizontalPodAutoscaler& hpa, const ReplayTarget& target);

}  // namespace hpa::replay
