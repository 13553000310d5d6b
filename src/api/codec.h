#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "api/history.h"
#include "api/hpa.h"
#include "api/metrics.h"
#include "api/pod.h"
#include "api/scale.h"
#include "common/result.h"

// JSON codecs for the objects the controller reads and writes. Decoders ignore unknown fields,
// keep absent optional fields absent, and fail with an Error naming the offending field; they
// never throw. Encoders write the Kubernetes wire form (omitting absent optional fields).
namespace hpa::api {

// --- metadata and selectors
nlohmann::json encodeObjectMeta(const ObjectMeta& meta);
Result<LabelSelector> decodeLabelSelector(const nlohmann::json& j);
nlohmann::json encodeLabelSelector(const LabelSelector& selector);

// --- autoscaling/v2 and autoscaling/v2beta2 HorizontalPodAutoscaler (same shape). The decoder
// applies the API server's defaults (applyDefaults) so that objects from files and from a
// server decide the same.
Result<HorizontalPodAutoscaler> decodeHorizontalPodAutoscaler(const nlohmann::json& j);
// The HPA as the daemon's cache keeps it: without the metadata the controller never reads (labels,
// annotations outside hpa-controller.io/, such as kubectl's last-applied-configuration, often
// larger than the rest of the object, and managedFields, of which only lastForeignStatusWrite is
// kept). Status writes patch the status alone, so nothing dropped here is ever written back.
Result<HorizontalPodAutoscaler> decodeCachedHorizontalPodAutoscaler(const nlohmann::json& j);
// `apiVersion` picks the wire version written in the object (autoscaling/v2 or v2beta2).
nlohmann::json encodeHorizontalPodAutoscaler(const HorizontalPodAutoscaler& hpa,
                                             std::string_view apiVersion);
nlohmann::json encodeHorizontalPodAutoscalerSpec(const HorizontalPodAutoscalerSpec& spec);
nlohmann::json encodeHorizontalPodAutoscalerStatus(const HorizontalPodAutoscalerStatus& status);
// A JSON merge patch (RFC 7396) of the status subresource that makes the stored status equal to
// hpa.status, guarded by hpa.metadata.resourceVersion (a stale one gets 409 Conflict): every
// field the status model has is set, absent ones to null; the metadata is not touched.
nlohmann::json statusMergePatch(const HorizontalPodAutoscaler& hpa);
Result<HorizontalPodAutoscalerStatus> decodeHorizontalPodAutoscalerStatus(const nlohmann::json& j);
nlohmann::json encodeMetricStatus(const MetricStatus& status);

// --- autoscaling/v1 Scale
Result<Scale> decodeScale(const nlohmann::json& j);
nlohmann::json encodeScale(const Scale& scale);

// --- core/v1 Pod, projected onto the lean Pod.
Result<Pod> decodePod(const nlohmann::json& j);
// The lean Pod written back as a (partial) core/v1 Pod; decodePod(encodePod(p)) == p.
nlohmann::json encodePod(const Pod& pod);

// --- metrics.k8s.io PodMetrics / PodMetricsList (v1beta1 and v1).
Result<PodMetrics> decodePodMetrics(const nlohmann::json& j);
Result<PodMetricsList> decodePodMetricsList(const nlohmann::json& j);
nlohmann::json encodePodMetrics(const PodMetrics& m, std::string_view apiVersion);

// --- custom.metrics.k8s.io MetricValue / MetricValueList, v1beta1 or v1beta2 chosen by the
// object's apiVersion (v1beta1: metricName, window, selector; v1beta2: metric{name,selector},
// windowSeconds). An absent or unknown apiVersion is an error, as for upstream's decoder.
Result<MetricValue> decodeMetricValue(const nlohmann::json& j, std::string_view apiVersion);
Result<MetricValueList> decodeMetricValueList(const nlohmann::json& j);
nlohmann::json encodeMetricValueList(const MetricValueList& list, std::string_view apiVersion);

// --- external.metrics.k8s.io/v1beta1 ExternalMetricValueList.
Result<ExternalMetricValue> decodeExternalMetricValue(const nlohmann::json& j);
Result<ExternalMetricValueList> decodeExternalMetricValueList(const nlohmann::json& j);
nlohmann::json encodeExternalMetricValueList(const ExternalMetricValueList& list);

// --- hpa-controller.io/v1alpha1 AutoscalerHistory.
Result<AutoscalerHistory> decodeAutoscalerHistory(const nlohmann::json& j);
nlohmann::json encodeAutoscalerHistory(const AutoscalerHistory& history);

}  // namespace hpa::api
