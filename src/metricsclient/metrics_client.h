#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/hpa.h"
#include "api/label_selector.h"
#include "common/clock.h"
#include "common/result.h"
#include "common/time.h"
#include "replicacalc/pod_metrics.h"

namespace hpa::metricsclient {

// Per-pod metric values (milli-units) plus the timestamp of the first item, as upstream's
// metrics client returns them.
struct PodMetricsResult {
  replicacalc::PodMetricsInfo metrics;
  Time timestamp;
  // For one named container: the first pod ("namespace/name") whose metrics lack it. Such pods
  // are left out (missing); releases before 1.32 failed the metric instead.
  std::optional<std::string> podWithoutContainer;
};

struct ObjectMetricResult {
  std::int64_t value = 0;  // milli
  Time timestamp;
};

struct ExternalMetricResult {
  std::vector<std::int64_t> values;  // milli, in API order
  Time timestamp;
};

// The four questions the HPA asks of the metrics APIs (upstream's MetricsClient). Errors carry
// upstream's texts ("unable to fetch metrics from resource metrics API: ...", "no metrics
// returned from custom metrics API", ...), which end up in conditions and events verbatim.
class MetricsClient {
 public:
  virtual ~MetricsClient() = default;

  // metrics.k8s.io: per-pod usage of `resource` summed over containers, or of the one
  // `container` when it is non-empty; pods lacking the data are omitted. `maxAge`: how old an
  // answer fetched for another caller may be to serve this one (half the asking HPA's own sync
  // period; zero: fetch) — a client that shares answers honours it, the others fetch anyway.
  virtual Result<PodMetricsResult> getResourceMetric(const std::string& resource,
                                                     const std::string& ns,
                                                     const api::Selector& selector,
                                                     const std::string& container,
                                                     Duration maxAge) = 0;
  // custom.metrics.k8s.io: a per-pod metric for the pods matching `selector` (`maxAge` as above).
  virtual Result<PodMetricsResult> getRawMetric(const std::string& metricName,
                                                const std::string& ns,
                                                const api::Selector& selector,
                                                const api::Selector& metricSelector,
                                                Duration maxAge) = 0;
  // custom.metrics.k8s.io: a metric describing one object.
  virtual Result<ObjectMetricResult> getObjectMetric(const std::string& metricName,
                                                     const std::string& ns,
                                                     const api::CrossVersionObjectReference& object,
                                                     const api::Selector& metricSelector) = 0;
  // external.metrics.k8s.io: every series of the metric matching `metricSelector`.
  virtual Result<ExternalMetricResult> getExternalMetric(const std::string& metricName,
                                                         const std::string& ns,
                                                         const api::Selector& metricSelector) = 0;
};

}  // namespace hpa::metricsclient
