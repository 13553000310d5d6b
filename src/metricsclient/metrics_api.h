#pragma once

#include "api/metrics.h"
#include "common/result.h"
#include "metricsclient/api_selection.h"
#include "metricsclient/metrics_client.h"

namespace hpa::metricsclient {

// The metrics APIs as the batching client reads them: what MetricsClient asks, plus the per-pod
// lists behind getResourceMetric and getRawMetric, unconverted and with the API's own errors
// (not yet wrapped as fetch errors). An empty selector string in a request selects every pod.
class MetricsApi : public MetricsClient {
 public:
  virtual Result<api::PodMetricsList> listPodMetrics(const ResourceMetricsRequest& request) = 0;
  virtual Result<api::MetricValueList> listPodsCustomMetric(const PodsMetricRequest& request) = 0;
};

}  // namespace hpa::metricsclient
