#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/hpa.h"
#include "api/pod.h"
#include "common/result.h"
#include "explain/snapshot.h"
#include "replay/trace.h"

namespace hpa::replay {

// The trace series an HPA metric reads is the name its values go by (api::metricNameOf: the
// resource of Resource and ContainerResource metrics, metric.name of the others; "" for a type
// that cannot be replayed).

// Every metric of the HPA has a series, and a series that can feed it: Object and External
// metrics are one value for the whole workload, so their series must be totals.
Status checkTraceCovers(const api::HorizontalPodAutoscaler& hpa, const Trace& trace);

struct MetricsMoment {
  Duration at{0};  // the trace offset
  Time now;        // the simulated instant (samples are stamped with it)
  Duration window{0};
};

// What the metrics APIs would serve at one moment, as the objects they serve (PodMetrics,
// MetricValue, ExternalMetricValue) put into `world`, which `explain`'s snapshot-backed metrics
// client answers from, so the controller reads them through the same conversions as in a
// cluster. Pods report through hpa-sim's load model (loadmodel/pod_load.h): a total series is
// spread evenly over the Ready pods (rounded to a milli-unit), a per-pod series is what each
// Ready pod reports; pods that are not Ready report nothing yet. A resource value sits on the
// container a ContainerResource metric names, else on the first container. Before a series'
// first sample its metric has no values.
void publishMetrics(const api::HorizontalPodAutoscaler& hpa, const Trace& trace,
                    const MetricsMoment& moment,
                    const std::vector<std::shared_ptr<const api::Pod>>& pods,
                    explain::Snapshot& world);

}  // namespace hpa::replay
