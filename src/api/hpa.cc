#include "api/hpa.h"

namespace hpa::api {
namespace {

// The wire form of metav1.Time has second precision; two statuses that serialize the same are
// the same status.
HorizontalPodAutoscalerStatus atWirePrecision(HorizontalPodAutoscalerStatus s) {
  if (s.lastScaleTime) s.lastScaleTime = truncateToSeconds(*s.lastScaleTime);
  for (auto& c : s.conditions) {
    if (c.lastTransitionTime) c.lastTransitionTime = truncateToSeconds(*c.lastTransitionTime);
  }
  return s;
}

// The one search of a status's conditions, for the const and the mutable status alike.
template <typename Status>
auto conditionIn(Status& status, std::string_view type) -> decltype(status.conditions.data()) {
  for (auto& c : status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace

const HorizontalPodAutoscalerCondition* findCondition(const HorizontalPodAutoscalerStatus& status,
                                                      std::string_view type) {
  return conditionIn(status, type);
}

HorizontalPodAutoscalerCondition* findCondition(HorizontalPodAutoscalerStatus& status,
                                                std::string_view type) {
  return conditionIn(status, type);
}

bool semanticallyEqual(const HorizontalPodAutoscalerStatus& a,
                       const HorizontalPodAutoscalerStatus& b) {
  // Quantity equality is by value already; vectors compare empty == empty. Equal as they are
  // (a steady reconcile's status) needs no copies at wire precision.
  return a == b || atWirePrecision(a) == atWirePrecision(b);
}

}  // namespace hpa::api
