#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/metrics.h"
#include "common/result.h"
#include "metricsclient/metrics_client.h"

namespace hpa::metricsclient {

// The step from what a metrics API returned to what the HPA uses (upstream's REST metrics
// client), shared by the live clients and `explain`'s snapshot client. Errors are the texts
// upstream's clients return, before "unable to fetch metrics from ... API: " wrapping where
// upstream wraps them (noted per function).

// metrics.k8s.io: per pod, the sum over containers of the resource (a pod with no containers,
// or with a container lacking the resource, is left out), or the value of the first container
// named `container`. Empty input: "no metrics returned from resource metrics API" (not
// wrapped upstream).
Result<PodMetricsResult> resourceMetricsFromPodMetrics(const std::vector<api::PodMetrics>& items,
                                                       const std::string& resource,
                                                       const std::string& container);
// The same over items held elsewhere (a shared list), without copying them.
Result<PodMetricsResult> resourceMetricsFromPodMetrics(
    const std::vector<const api::PodMetrics*>& items, const std::string& resource,
    const std::string& container);
// One pod's value under that rule; nullopt when the pod is left out.
std::optional<std::int64_t> podResourceUsage(const api::PodMetrics& pod,
                                             const std::string& resource,
                                             const std::string& container);
// What the rule answers for no items at all.
Error noResourceMetricsError();

// custom.metrics.k8s.io per-pod values keyed by describedObject.name; window defaults to one
// minute. Empty input: "no metrics returned from custom metrics API" (not wrapped upstream).
Result<PodMetricsResult> podMetricsFromMetricValues(const std::vector<api::MetricValue>& items);

// custom.metrics.k8s.io object metric: exactly one item. Otherwise "the custom metrics API server
// returned %v results when we asked for exactly one" (upstream wraps it as a fetch error).
Result<ObjectMetricResult> objectMetricFromMetricValues(const std::vector<api::MetricValue>& items);

// external.metrics.k8s.io: every value in order. Empty input: "no metrics returned from external
// metrics API" (not wrapped upstream).
Result<ExternalMetricResult> externalMetricFromValues(
    const std::vector<api::ExternalMetricValue>& items);

// Upstream's wrapping of a failed request to each API.
Error resourceFetchError(
    const Error& e);                     // "unable to fetch metrics from resource metrics API: %v"
Error customFetchError(const Error& e);  // "unable to fetch metrics from custom metrics API: %v"
Error externalFetchError(
    const Error& e);  // "unable to fetch metrics from external metrics API: %v"

}  // namespace hpa::metricsclient
