#pragma once

// The words of an HPA's conditions and Events: condition types, statuses and reasons, as
// constants with upstream's exact text (k8s.io/api/autoscaling/v2 for the types,
// pkg/controller/podautoscaler/horizontal.go and replica_calculator.go for the reasons), then the
// reasons hpa-controller's own controls add. Code sets and matches conditions and Events by these
// constants, never by a literal: tests/api/condition_reasons_test.cc fails when a reason listed
// below is written as a string anywhere else in src/.

namespace hpa::api {

// Condition types.
inline constexpr const char* kAbleToScale = "AbleToScale";
inline constexpr const char* kScalingActive = "ScalingActive";
inline constexpr const char* kScalingLimited = "ScalingLimited";
inline constexpr const char* kScaledToZero = "ScaledToZero";
// hpa-controller.io/forecast's own condition (docs/controls.md).
inline constexpr const char* kForecastCondition = "Forecast";

// Condition statuses.
inline constexpr const char* kConditionTrue = "True";
inline constexpr const char* kConditionFalse = "False";
inline constexpr const char* kConditionUnknown = "Unknown";

// --- reasons (the test reads the constants from here to the end of the file) ---

// AbleToScale.
inline constexpr const char* kSucceededGetScale = "SucceededGetScale";
inline constexpr const char* kFailedGetScale = "FailedGetScale";  // an Event's reason too
inline constexpr const char* kFailedUpdateScale = "FailedUpdateScale";
inline constexpr const char* kSucceededRescale = "SucceededRescale";
inline constexpr const char* kReadyForNewScale = "ReadyForNewScale";
inline constexpr const char* kScaleUpStabilized = "ScaleUpStabilized";
inline constexpr const char* kScaleDownStabilized = "ScaleDownStabilized";

// ScalingActive; the metric and selector failures are the Warning Events' reasons too.
inline constexpr const char* kValidMetricFound = "ValidMetricFound";
inline constexpr const char* kScalingDisabled = "ScalingDisabled";
inline constexpr const char* kInvalidSelector = "InvalidSelector";
inline constexpr const char* kAmbiguousSelector = "AmbiguousSelector";
inline constexpr const char* kInvalidMetricSourceType = "InvalidMetricSourceType";
inline constexpr const char* kFailedGetObjectMetric = "FailedGetObjectMetric";
inline constexpr const char* kFailedGetPodsMetric = "FailedGetPodsMetric";
inline constexpr const char* kFailedGetResourceMetric = "FailedGetResourceMetric";
inline constexpr const char* kFailedGetContainerResourceMetric = "FailedGetContainerResourceMetric";
inline constexpr const char* kFailedGetExternalMetric = "FailedGetExternalMetric";

// ScalingLimited.
inline constexpr const char* kDesiredWithinRange = "DesiredWithinRange";
inline constexpr const char* kTooManyReplicas = "TooManyReplicas";
inline constexpr const char* kTooFewReplicas = "TooFewReplicas";
inline constexpr const char* kScaleUpLimit = "ScaleUpLimit";
inline constexpr const char* kScaleDownLimit = "ScaleDownLimit";

// ScaledToZero (its True reason has the type's name).
inline constexpr const char* kScaledToZeroReason = "ScaledToZero";
inline constexpr const char* kNotScaledToZero = "NotScaledToZero";

// Events only.
inline constexpr const char* kSuccessfulRescale = "SuccessfulRescale";
inline constexpr const char* kFailedRescale = "FailedRescale";
inline constexpr const char* kFailedComputeMetricsReplicas = "FailedComputeMetricsReplicas";
inline constexpr const char* kFailedUpdateStatus = "FailedUpdateStatus";
inline constexpr const char* kSelectorRequired = "SelectorRequired";

// hpa-controller's own controls (docs/controls.md), conditions and Events.
inline constexpr const char* kScheduledMinReplicas = "ScheduledMinReplicas";  // ScalingLimited
inline constexpr const char* kScheduledMaxReplicas = "ScheduledMaxReplicas";  // ScalingLimited
inline constexpr const char* kMetricFallback = "MetricFallback";  // ScalingActive, Warning
inline constexpr const char* kMetricFallbackEnded = "MetricFallbackEnded";  // Normal
inline constexpr const char* kScalingPaused = "ScalingPaused";              // ScalingActive, Normal
inline constexpr const char* kScalingResumed = "ScalingResumed";            // ScalingActive, Normal
inline constexpr const char* kScaleUpPaused = "ScaleUpPaused";              // AbleToScale, Normal
inline constexpr const char* kScaleDownPaused = "ScaleDownPaused";          // AbleToScale, Normal
inline constexpr const char* kInvalidSyncPeriod =
    "InvalidSyncPeriod";                                          // an invalid control's error
inline constexpr const char* kInvalidControl = "InvalidControl";  // an invalid control's error
// Forecast (hpa-controller.io/forecast); ForecastFloor is ScalingLimited's too.
inline constexpr const char* kForecastFloor = "ForecastFloor";
inline constexpr const char* kForecastPreview = "ForecastPreview";
inline constexpr const char* kNoForecastHistory = "NoForecastHistory";
inline constexpr const char* kNoForecast = "NoForecast";
inline constexpr const char* kInvalidForecast = "InvalidForecast";
inline constexpr const char* kAnotherControllerWritesStatus =
    "AnotherControllerWritesStatus";  // Warning

}  // namespace hpa::api
