#include "replicacalc/tolerances.h"

namespace hpa::replicacalc {

Tolerances tolerancesFor(const api::HorizontalPodAutoscalerSpec& spec, double clusterTolerance,
                         const DecisionRules& rules) {
  Tolerances t{clusterTolerance, clusterTolerance, rules.inclusiveTolerance};
  if (!spec.behavior || !rules.behaviorTolerances()) return t;
  const auto& b = *spec.behavior;
  if (b.scaleDown && b.scaleDown->tolerance)
    t.scaleDown = b.scaleDown->tolerance->asApproximateFloat();
  if (b.scaleUp && b.scaleUp->tolerance) t.scaleUp = b.scaleUp->tolerance->asApproximateFloat();
  return t;
}

}  // namespace hpa::replicacalc
