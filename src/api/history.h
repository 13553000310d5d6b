#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/meta.h"

namespace hpa::api {

// The controller's per-HPA memory (upstream keeps it in maps and loses it on restart):
// downscale-stabilization recommendations and the scale events behavior policies count.
// Wire form: apiVersion hpa-controller.io/v1alpha1, kind AutoscalerHistory.
inline constexpr const char* kHistoryApiVersion = "hpa-controller.io/v1alpha1";
inline constexpr const char* kHistoryKind = "AutoscalerHistory";

struct TimestampedRecommendation {
  std::int32_t replicas = 0;
  Time timestamp;
  bool operator==(const TimestampedRecommendation&) const = default;
};

struct TimestampedScaleEvent {
  std::int32_t replicaChange = 0;  // absolute value of the change, >= 0
  Time timestamp;
  bool outdated = false;
  bool operator==(const TimestampedScaleEvent&) const = default;
};

struct AutoscalerHistory {
  std::string name;
  std::string namespace_;
  std::vector<TimestampedRecommendation> recommendations;
  std::vector<TimestampedScaleEvent> scaleUpEvents;
  std::vector<TimestampedScaleEvent> scaleDownEvents;
  bool operator==(const AutoscalerHistory&) const = default;
};

}  // namespace hpa::api
