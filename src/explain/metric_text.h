#pragma once

#include <string>
#include <vector>

#include "api/hpa.h"
#include "api/metric_units.h"

namespace hpa::explain {

// explain's own words for metrics. Upstream's texts (metric names in rescale reasons, Events and
// conditions) name an External metric's selector by Go's debug print of it; explain keeps those
// texts verbatim where they are upstream's (Events, conditions, the JSON fields documented as
// upstream's) and speaks plainly in its own lines.

// `text` with each External metric's selector, as upstream prints it, replaced by kubectl's
// form: "external metric queue_depth(&LabelSelector{MatchLabels:...})" becomes
// "external metric queue_depth{queue=work}", "...queue_depth(nil)" becomes "...queue_depth". A
// selector that is not valid (the metric then fails) stays as it was.
std::string readableMetricText(std::string text, const std::vector<api::MetricSpec>& metrics);

// The unit of the values of metrics[index]; a plain number when there is no such metric.
api::MetricUnit unitAt(const std::vector<api::MetricSpec>& metrics, size_t index);

}  // namespace hpa::explain
