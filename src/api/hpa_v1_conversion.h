#pragma once

#include <nlohmann/json.hpp>

#include "api/hpa.h"
#include "common/result.h"

namespace hpa::api {

// The annotations in which the API server keeps, on an autoscaling/v1 HPA, what that version
// has no field for: the metrics other than a CPU utilization target, status.currentMetrics and
// status.conditions (JSON arrays of v1's own shapes: targetAverageValue, metricName, ...: the
// v2beta1 layout), and spec.behavior (its internal type as Go marshals it, with Go's field
// names). The tolerance annotations carry behavior's tolerances to v2beta2 clients.
inline constexpr const char* kV1MetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
inline constexpr const char* kV1CurrentMetricsAnnotation =
    "autoscaling.alpha.kubernetes.io/current-metrics";
inline constexpr const char* kV1ConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";
inline constexpr const char* kV1BehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior";
inline constexpr const char* kScaleUpToleranceAnnotation =
    "autoscaling.alpha.kubernetes.io/scale-up-tolerance";
inline constexpr const char* kScaleDownToleranceAnnotation =
    "autoscaling.alpha.kubernetes.io/scale-down-tolerance";

// An autoscaling/v1 HorizontalPodAutoscaler (what `kubectl get hpa -o yaml` prints on servers up
// to 1.22), converted as the API server converts it to the version the controller reads:
// spec.targetCPUUtilizationPercentage becomes a Resource cpu Utilization metric, placed after
// the metrics of the annotation; status.currentCPUUtilizationPercentage becomes the cpu entry of
// status.currentMetrics unless the current-metrics annotation gives them all; the conditions and
// spec.behavior come from their annotations; the annotations are then removed from the
// metadata. An HPA with neither a CPU target nor other metrics gets the 80 % CPU default, and
// then the API defaults apply as for every other version. The result is an autoscaling/v2
// object.
//
// Errors name the field, inside an annotation as well:
// "metadata.annotations[autoscaling.alpha.kubernetes.io/metrics][0].pods.targetAverageValue: ...".
// A behavior annotation that does not decode gives no behavior, as the API server ignores it.
Result<HorizontalPodAutoscaler> decodeHorizontalPodAutoscalerV1(const nlohmann::json& j);

}  // namespace hpa::api
