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

}  // namespace

bool semanticallyEqual(const HorizontalPodAutoscalerStatus& a, const HorizontalPodAutoscalerStatus& b) {
  // Quantity equality is by value already; vectors compare empty == empty. Equal as they are
  // (a steady reconcile's status) needs no copies at wire precision.
  return a == b || atWirePrecision(a) == atWirePrecision(b);
}

}  // namespace hpa::api
