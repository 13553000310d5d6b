#include "controller/conditions.h"

#include <algorithm>

namespace hpa::controller {

void setCondition(api::HorizontalPodAutoscalerStatus& status, const std::string& type, const std::string& conditionStatus,
                  const std::string& reason, const std::string& message, Time now) {
  auto it = std::find_if(status.conditions.begin(), status.conditions.end(),
                         [&](const auto& c) { return c.type == type; });
  if (it == status.conditions.end()) {
    status.conditions.push_back(api::HorizontalPodAutoscalerCondition{type, "", std::nullopt, "", "", std::nullopt});
    it = std::prev(status.conditions.end());
  }
  if (it->status != conditionStatus) {
    it->lastTransitionTime = now;
  }
  it->status = conditionStatus;
  it->reason = reason;
  it->message = message;
}

void removeCondition(api::HorizontalPodAutoscalerStatus& status, const std::string& type) {
  std::erase_if(status.conditions, [&](const auto& c) { return c.type == type; });
}

const api::HorizontalPodAutoscalerCondition* findCondition(const api::HorizontalPodAutoscalerStatus& status,
                                                           const std::string& type) {
  for (const auto& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace hpa::controller
