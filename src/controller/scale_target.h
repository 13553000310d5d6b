#pragma once

#include <string>
#include <variant>

#include "api/hpa.h"
#include "api/scale.h"
#include "common/result.h"
#include "controller/scale_client.h"

namespace hpa::controller {

// The target's Scale as upstream finds it: the group of scaleTargetRef.apiVersion (its version
// is ignored), every REST mapping of group/kind in preference order, the first mapping whose
// GET succeeds. The reconcile turns a failure into FailedGetScale; `explain` uses the same
// lookup to learn the selectors of the HPAs it does not explain.
struct ScaleTarget {
  api::Scale scale;
  GroupVersionResource resource;
};

struct ScaleTargetError {
  enum class Step { ApiVersion, Mapping, Get };
  Step step;
  Error error;  // the unwrapped error of that step (for Get: the first mapping's error)
};

std::variant<ScaleTarget, ScaleTargetError> findScaleTarget(
    ScaleClient& scales, const std::string& ns, const api::CrossVersionObjectReference& ref);

}  // namespace hpa::controller
