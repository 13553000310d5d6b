#pragma once

#include <string>

#include "api/hpa.h"

namespace hpa::controller {

inline constexpr const char* kEventNormal = "Normal";
inline constexpr const char* kEventWarning = "Warning";

// Records core/v1 Events about an HPA (source component `horizontal-pod-autoscaler`).
// Fire-and-forget as client-go's recorder: failures are the recorder's to log.
class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  virtual void event(const api::HorizontalPodAutoscaler& hpa, const std::string& type,
                     const std::string& reason, const std::string& message) = 0;
};

}  // namespace hpa::controller
