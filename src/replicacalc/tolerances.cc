#include "replicacalc/tolerances.h"

namespace hpa::replicacalc {

Tolerances tolerancesFor(const api::HorizontalPodAutoscalerSpec& spec, double clusterTolerance, DecisionRules rules) {
  Tolerances t{clusterTolerance, clusterTolerance, rules};
  if (!spec.behavior) return t;
  const auto& b = *spec.behavior;
  if (b.scaleDown && b.scaleDown->tolerance) t.scaleDown = b.scaleDown->tolerance->asApproximateFloat();
  if (b.scaleUp && b.scaleUp->tolerance) t.scaleUp = b.scaleUp->tolerance->asApproximateFloat();
  return t;
}

}  // namespace hpa::replicacalc
