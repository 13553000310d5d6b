#pragma once

#include "common/result.h"

namespace hpa::controller {

// Upstream marks errors caused by the HPA's spec (an invalid scaleTargetRef.apiVersion, an
// unknown metric type) with a sentinel so that its monitor labels them error="spec"; the mark
// survives wrapping. Here the mark is the Error's reason, which wrap() keeps.
inline constexpr const char* kSpecErrorReason = "hpa-controller.io/SpecError";

inline Error specError(Error e) {
  e.reason = kSpecErrorReason;
  return e;
}
inline bool isSpecError(const Error& e) { return e.reason == kSpecErrorReason; }

}  // namespace hpa::controller
