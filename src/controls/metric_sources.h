#pragma once

// hpa-controller.io/metric-sources: each listed metric is read from the adapter that serves it
// instead of the one APIService the cluster registers for its group (prometheus-adapter#367: one
// APIService per group, so KEDA and prometheus-adapter cannot both serve external metrics).
// KEP-6382's field `source.apiGroup` routes through the API server to another group; this
// controller's extension `source.service` (with `caBundle` or `insecureSkipTLSVerify`, an
// APIService's own fields) goes to the adapter's Service directly. A list keyed by the metric's
// type and name, and its selector where two metrics share a name:
//
//   - type: External
//     name: queue_depth
//     source: {service: {namespace: keda, name: keda-operator-metrics-apiserver, port: 443},
//              caBundle: <base64 PEM>}
//   - type: Pods
//     name: requests_per_second
//     source: {apiGroup: modelserver.example.com}

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/metric_route.h"
#include "api/metric_source.h"
#include "common/result.h"

namespace hpa::controls {

inline constexpr const char* kMetricSourcesAnnotation = "hpa-controller.io/metric-sources";

// One route per entry of `metrics` (nullopt: the default API). Every entry of the annotation must
// name a metric of `metrics`, and no metric may be named twice.
Result<std::vector<std::optional<api::MetricRoute>>> parseMetricSources(
    std::string_view text, const std::vector<api::MetricSpec>& metrics);

// The routed metrics as "<type> <name> from <route>", for explain's and the shadow's words.
std::string formatMetricSources(const std::vector<std::optional<api::MetricRoute>>& routes,
                                const std::vector<api::MetricSpec>& metrics);

}  // namespace hpa::controls
