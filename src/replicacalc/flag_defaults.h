#pragma once

#include <chrono>

#include "common/time.h"

namespace hpa::replicacalc {

// kube-controller-manager's defaults of its HPA flags that change a decision: the one place they
// are written (controller/decision_flags.h defines the flags).
inline constexpr double kDefaultTolerance = 0.1;  // --horizontal-pod-autoscaler-tolerance
inline constexpr Duration kDefaultDownscaleStabilization =
    std::chrono::minutes(5);  // ...-downscale-stabilization
inline constexpr Duration kDefaultCpuInitializationPeriod =
    std::chrono::minutes(5);  // ...-cpu-initialization-period
inline constexpr Duration kDefaultInitialReadinessDelay =
    std::chrono::seconds(30);  // ...-initial-readiness-delay

}  // namespace hpa::replicacalc
