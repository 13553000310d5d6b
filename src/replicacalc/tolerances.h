#pragma once

#include "api/hpa.h"

namespace hpa::replicacalc {

// How far a usage ratio may stray from 1.0 before the calculator proposes a change, per
// direction (HPAConfigurableTolerance lets spec.behavior override either side).
struct Tolerances {
  double scaleDown = 0.1;
  double scaleUp = 0.1;

  // Both bounds inclusive, in double precision as upstream (so 1.1 is within a 0.1 tolerance).
  // NaN is never within.
  bool isWithin(double ratio) const { return (1.0 - scaleDown) <= ratio && ratio <= (1.0 + scaleUp); }
};

// The cluster-wide tolerance, overridden per direction by behavior.scale{Up,Down}.tolerance.
Tolerances tolerancesFor(const api::HorizontalPodAutoscalerSpec& spec, double clusterTolerance);

}  // namespace hpa::replicacalc
