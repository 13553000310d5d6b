#pragma once

#include "api/hpa.h"
#include "informer/informer.h"
#include "informer/workload_caches.h"

namespace hpa::adapters {

// HPA informer handlers that start the workload caches the HPAs will need as soon as the HPAs
// are seen, leader or not: the target's kind, and ReplicaSets for an HPA that selects its pods by
// owner (a Deployment's pods belong to its ReplicaSets). A standby then holds every cache the
// leader reads, so after a failover the new leader decides at once instead of listing first
// (upstream starts its informers only once it leads).
informer::EventHandlers<api::HorizontalPodAutoscaler> warmWorkloadCaches(
    informer::WorkloadCaches& caches);

}  // namespace hpa::adapters
