#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/conditions.h"
#include "api/heap_optional.h"
#include "api/label_selector.h"
#include "api/meta.h"
#include "api/metric_source.h"
#include "api/quantity.h"

namespace hpa::api {

// autoscaling/v2 HorizontalPodAutoscaler (the v2beta2 wire shape is the same for every field
// the controller uses). Optional fields that the API may omit are std::optional: absent is
// not zero.

// spec.metrics: api/metric_source.h.

inline constexpr const char* kPodsScalingPolicy = "Pods";
inline constexpr const char* kPercentScalingPolicy = "Percent";
inline constexpr const char* kMaxChangePolicySelect = "Max";
inline constexpr const char* kMinChangePolicySelect = "Min";
inline constexpr const char* kDisabledPolicySelect = "Disabled";

struct HPAScalingPolicy {
  std::string type;
  std::int32_t value = 0;
  std::int32_t periodSeconds = 0;
  bool operator==(const HPAScalingPolicy&) const = default;
};

struct HPAScalingRules {
  std::optional<std::int32_t> stabilizationWindowSeconds;
  std::optional<std::string> selectPolicy;
  std::optional<std::vector<HPAScalingPolicy>> policies;
  std::optional<Quantity> tolerance;
  bool operator==(const HPAScalingRules&) const = default;
};

struct HorizontalPodAutoscalerBehavior {
  std::optional<HPAScalingRules> scaleUp;
  std::optional<HPAScalingRules> scaleDown;
  bool operator==(const HorizontalPodAutoscalerBehavior&) const = default;
};

struct HorizontalPodAutoscalerSpec {
  CrossVersionObjectReference scaleTargetRef;
  std::optional<std::int32_t> minReplicas;
  std::int32_t maxReplicas = 0;
  std::vector<MetricSpec> metrics;
  std::optional<HorizontalPodAutoscalerBehavior> behavior;
  // KEP-6003 (alpha planned, not served by any release yet): the HPA's own sync period. Read
  // when a server has it; the hpa-controller.io/sync-period annotation stands in otherwise.
  std::optional<std::int32_t> syncPeriodSeconds;
  bool operator==(const HorizontalPodAutoscalerSpec&) const = default;
};

struct MetricValueStatus {
  std::optional<Quantity> value;
  std::optional<Quantity> averageValue;
  std::optional<std::int32_t> averageUtilization;
  bool operator==(const MetricValueStatus&) const = default;
};

struct ObjectMetricStatus {
  MetricIdentifier metric;
  MetricValueStatus current;
  CrossVersionObjectReference describedObject;
  bool operator==(const ObjectMetricStatus&) const = default;
};

struct PodsMetricStatus {
  MetricIdentifier metric;
  MetricValueStatus current;
  bool operator==(const PodsMetricStatus&) const = default;
};

struct ResourceMetricStatus {
  std::string name;
  MetricValueStatus current;
  bool operator==(const ResourceMetricStatus&) const = default;
};

struct ContainerResourceMetricStatus {
  std::string name;
  MetricValueStatus current;
  std::string container;
  bool operator==(const ContainerResourceMetricStatus&) const = default;
};

struct ExternalMetricStatus {
  MetricIdentifier metric;
  MetricValueStatus current;
  bool operator==(const ExternalMetricStatus&) const = default;
};

// A failed metric leaves a zero-valued entry (type "") in status.currentMetrics, as upstream.
struct MetricStatus {
  std::string type;
  HeapOptional<ObjectMetricStatus> object;
  HeapOptional<PodsMetricStatus> pods;
  HeapOptional<ResourceMetricStatus> resource;
  HeapOptional<ContainerResourceMetricStatus> containerResource;
  HeapOptional<ExternalMetricStatus> external;
  bool operator==(const MetricStatus&) const = default;
};

struct HorizontalPodAutoscalerCondition {
  std::string type;
  std::string status;
  std::optional<Time> lastTransitionTime;
  std::string reason;
  std::string message;
  std::optional<std::int64_t> observedGeneration;
  bool operator==(const HorizontalPodAutoscalerCondition&) const = default;
};

struct HorizontalPodAutoscalerStatus {
  std::optional<std::int64_t> observedGeneration;
  std::optional<Time> lastScaleTime;
  std::int32_t currentReplicas = 0;
  std::int32_t desiredReplicas = 0;
  std::vector<MetricStatus> currentMetrics;
  std::vector<HorizontalPodAutoscalerCondition> conditions;
  bool operator==(const HorizontalPodAutoscalerStatus&) const = default;
};

struct HorizontalPodAutoscaler {
  std::string apiVersion = "autoscaling/v2";
  ObjectMeta metadata;
  HorizontalPodAutoscalerSpec spec;
  HorizontalPodAutoscalerStatus status;
  // Of metadata.managedFields only this: the newest status write by a field manager other than
  // ours (kFieldManager), which tells whether another HPA controller writes this HPA too.
  std::optional<StatusWrite> lastForeignStatusWrite;
  bool operator==(const HorizontalPodAutoscaler&) const = default;
};

// The condition of `type` in `status`, or null when it has none.
const HorizontalPodAutoscalerCondition* findCondition(const HorizontalPodAutoscalerStatus& status,
                                                      std::string_view type);
HorizontalPodAutoscalerCondition* findCondition(HorizontalPodAutoscalerStatus& status,
                                                std::string_view type);

// Semantic equality as upstream's updateStatusIfNeeded uses it: quantities by value, times by
// instant at second precision (the wire form), a missing list equal to an empty one.
bool semanticallyEqual(const HorizontalPodAutoscalerStatus& a,
                       const HorizontalPodAutoscalerStatus& b);

}  // namespace hpa::api
