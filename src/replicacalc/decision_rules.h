#pragma once

namespace hpa::replicacalc {

// Whose rules decide where kube-controller-manager versions differ (--decision-rules): current
// upstream's, or those of kube-controller-manager 1.18 to 1.20, for agreement with such a
// controller (shadow mode beside it, or a switch that keeps its behaviour).
enum class DecisionRules {
  // Current upstream (since 1.21; configurable tolerances since 1.33).
  Current,
  // kube-controller-manager 1.18 to 1.20:
  //  - tolerance: |1 - ratio| <= tolerance, in double precision, so a ratio of exactly
  //    1 + tolerance (1.1 at 0.1) is outside it and scales, where current upstream keeps;
  //  - behavior's stabilization: one window, chosen by the proposal's direction (the scale-up
  //    window when it is at least the current size, else the scale-down window), whose lowest (up)
  //    or highest (down) recommendation is taken, so a low proposal can scale *up* to a recent
  //    higher recommendation ("All metrics below target", kubernetes#96671);
  //  - behavior's policies: a period's starting count discounts only the changes of the limit's
  //    own direction (a scale-up limit ignores the period's scale-downs, and the reverse).
  Kubernetes120,
};

}  // namespace hpa::replicacalc
