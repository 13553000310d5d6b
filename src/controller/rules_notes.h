#pragma once

#include <string>
#include <vector>

#include "api/hpa.h"
#include "replicacalc/decision_rules.h"

namespace hpa::controller {

// The fields of `spec` that the release of `rules` does not know or whose feature gate is off
// there, one sentence each: what that release's API server does with the field (drops it, or
// refuses the HPA) and how its controller decides an HPA stored with it, which is how it is
// decided here. Empty for an HPA that uses none.
std::vector<std::string> rulesNotes(const api::HorizontalPodAutoscalerSpec& spec,
                                    const replicacalc::DecisionRules& rules);

}  // namespace hpa::controller
