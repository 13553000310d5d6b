#pragma once

#include <cmath>

#include "api/hpa.h"
#include "replicacalc/decision_rules.h"

namespace hpa::replicacalc {

// How far a usage ratio may stray from 1.0 before the calculator proposes a change, per
// direction (HPAConfigurableTolerance lets spec.behavior override either side).
struct Tolerances {
  double scaleDown = 0.1;
  double scaleUp = 0.1;
  DecisionRules rules = DecisionRules::Current;

  // Both bounds inclusive, in double precision as upstream (so 1.1 is within a 0.1 tolerance);
  // 1.18-1.20's distance rule leaves 1.1 outside (|1 - 1.1| is 0.10000000000000009). NaN is
  // never within.
  bool isWithin(double ratio) const {
    if (rules == DecisionRules::Kubernetes120) return std::abs(1.0 - ratio) <= scaleUp;
    return (1.0 - scaleDown) <= ratio && ratio <= (1.0 + scaleUp);
  }
};

// The cluster-wide tolerance, overridden per direction by behavior.scale{Up,Down}.tolerance.
Tolerances tolerancesFor(const api::HorizontalPodAutoscalerSpec& spec, double clusterTolerance,
                         DecisionRules rules = DecisionRules::Current);

}  // namespace hpa::replicacalc
