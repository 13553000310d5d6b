#include "controller/conditions.h"

namespace hpa::controller {

void setCondition(api::HorizontalPodAutoscalerStatus& status, const std::string& type,
                  const std::string& conditionStatus, const std::string& reason,
                  const std::string& message, Time now) {
  auto* it = api::findCondition(status, type);
  if (!it) {
    it = &status.conditions.emplace_back(
        api::HorizontalPodAutoscalerCondition{type, "", std::nullopt, "", "", std::nullopt});
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

}  // namespace hpa::controller
