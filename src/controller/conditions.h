#pragma once

#include <string>
#include <vector>

#include "api/hpa.h"
#include "common/time.h"

namespace hpa::controller {

// Upstream's setCondition: appends a condition type the first time it is set (so the list keeps
// the order in which types were first set), moves lastTransitionTime only when the status
// changes, and always overwrites reason and message.
void setCondition(api::HorizontalPodAutoscalerStatus& status, const std::string& type,
                  const std::string& conditionStatus, const std::string& reason,
                  const std::string& message, Time now);

// Drops every condition of `type`, keeping the order of the others.
void removeCondition(api::HorizontalPodAutoscalerStatus& status, const std::string& type);

}  // namespace hpa::controller
