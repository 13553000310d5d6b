#pragma once

#include <nlohmann/json.hpp>

#include "api/hpa.h"
#include "common/result.h"

namespace hpa::api {

// The annotations in which the API server keeps, on an autoscaling/v1 HPA, what that version
// has no field for: the metrics other than a CPU utilization target, status.currentMetrics and
// status.conditions. Each holds a JSON array of v1's own metric shapes (targetAverageValue,
// metricName, ...: the v2beta1 layout).
inline constexpr const char* kV1MetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics";
inline constexpr const char* kV1CurrentMetricsAnnotation =
    "autoscaling.alpha.kubernetes.io/current-metrics";
inline constexpr const char* kV1ConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions";

// An autoscaling/v1 HorizontalPodAutoscaler (what `kubectl get hpa -o yaml` prints on servers up
// to 1.22), converted as the API server converts it to the version the controller reads:
// spec.targetCPUUtilizationPercentage becomes a Resource cpu Utilization metric, placed after
// the metrics of the annotation; status.currentCPUUtilizationPercentage becomes the cpu entry of
// status.currentMetrics unless the current-metrics annotation gives them all; the conditions
// come from their annotation; the three annotations are then removed from the metadata. An HPA
// with neither a CPU target nor other metrics gets the 80 % CPU default, and then the API
// defaults apply as for every other version. The result is an autoscaling/v2 object.
//
// v1 has no place for spec.behavior: the API server drops it from a v1 answer, so an HPA
// exported as v1 decides as one without behavior.
//
// Errors name the field, inside an annotation as well:
// "metadata.annotations[autoscaling.alpha.kubernetes.io/metrics][0].pods.targetAverageValue: ...".
Result<HorizontalPodAutoscaler> decodeHorizontalPodAutoscalerV1(const nlohmann::json& j);

}  // namespace hpa::api
