#pragma once

#include <optional>
#include <vector>

#include "api/hpa.h"
#include "api/pod.h"
#include "common/time.h"
#include "replay/trace.h"

namespace hpa::replay {

struct Tick;

// The two figures that weigh a run's scaling against each other: the time its pods were short of
// capacity, and what its replicas cost.
//
// Pod-minutes above target: at each sync, the per-pod value of every metric whose target is per
// pod (Utilization, AverageValue) is compared with that target: the trace's value spread over the
// Ready pods for a total series, the value itself for a per-pod one; a utilization target is
// read against the pod template's request. When one of them exceeds its target by more than the
// tolerance (the point where the HPA itself calls for more pods), the Ready pods count, for the
// time until the next sync: the under-provisioned time weighted by the pods that served the load.
// Metrics with a Value target have no per-pod value and do not count.
//
// Replica-hours: the replica count after each sync, for the time until the next sync.
//
// Both integrate from the first sync counted to the last sync of the run, sampled at the syncs.
struct Provisioning {
  double podMinutesAboveTarget = 0;
  double replicaHours = 0;
  // False when no metric of the HPA has a per-pod target: pod-minutes above target mean nothing.
  bool perPodTarget = false;
};

// Each metric's per-pod target in milli-units of its unit, in spec.metrics order; nullopt for a
// Value target, or a utilization target whose request the pod template does not give.
std::vector<std::optional<double>> perPodTargets(const api::HorizontalPodAutoscaler& hpa,
                                                 const api::Pod& podTemplate);

struct ProvisioningInputs {
  const std::vector<Tick>& ticks;
  const Trace& trace;
  const std::vector<std::optional<double>>& targets;  // perPodTargets()
  double tolerance = 0;                               // above target: value > target * (1 + it)
  Duration from{0};  // the syncs before this trace offset are not counted
};

Provisioning measureProvisioning(const ProvisioningInputs& inputs);

}  // namespace hpa::replay
