#pragma once

#include <cmath>

#include "api/hpa.h"
#include "replicacalc/decision_rules.h"
#include "replicacalc/flag_defaults.h"

namespace hpa::replicacalc {

// How far a usage ratio may stray from 1.0 before the calculator proposes a change, per
// direction (HPAConfigurableTolerance lets spec.behavior override either side).
struct Tolerances {
  double scaleDown = kDefaultTolerance;
  double scaleUp = kDefaultTolerance;
  // Since 1.33 both bounds are inclusive, in double precision (so 1.1 is within a 0.1
  // tolerance); before, the distance |1 - r| was compared with the tolerance, which leaves 1.1
  // outside (|1 - 1.1| is 0.10000000000000009). Both directions had one tolerance then.
  bool inclusive = true;

  // NaN is never within.
  bool isWithin(double ratio) const {
    if (!inclusive) return std::abs(1.0 - ratio) <= scaleUp;
    return (1.0 - scaleDown) <= ratio && ratio <= (1.0 + scaleUp);
  }
};

// The cluster-wide tolerance, overridden per direction by behavior.scale{Up,Down}.tolerance
// where the rules read those fields.
Tolerances tolerancesFor(const api::HorizontalPodAutoscalerSpec& spec, double clusterTolerance,
                         const DecisionRules& rules = DecisionRules{});

}  // namespace hpa::replicacalc
