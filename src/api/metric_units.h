#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/hpa.h"
#include "api/quantity.h"

namespace hpa::api {

// How a person reads a metric's values. The calculator counts every metric in milli-units (a
// CPU usage of 250m is 250, 50Mi of memory is 52428800000, 32 jobs are 32000); text meant for
// people shows them as kubectl does instead. This is the one rule for that: explain's text uses
// it, and every other report written for people should.
enum class MetricUnit {
  // cpu: millicores below a whole core or with a fraction ("250m", "1500m"), else cores ("2").
  Cores,
  // memory, storage, ephemeral-storage, hugepages-*: binary suffixes ("50Mi", "1.5Gi", "512").
  Bytes,
  // Every other metric (pods, object, external, other resources): a plain decimal ("32", "0.5").
  Number,
};

// The unit of a resource by its name (a Resource or ContainerResource metric, a request).
MetricUnit unitOfResource(std::string_view resource);
// The unit of a metric's values: its resource's for Resource and ContainerResource metrics, a
// plain number for the others (their values are whatever the metrics API serves).
MetricUnit unitOf(const MetricSpec& metric);

// "cores", "bytes", "number": how JSON output names the unit of its milli-unit fields.
const char* unitName(MetricUnit unit);

// A value of `unit` given in milli-units, as a person reads it. Exact where the unit allows
// ("1.234" for a number, "1500m" for cpu, "50Mi" for 52428800 bytes); bytes that are no whole
// multiple of a binary suffix show two decimals at most ("16.67Mi").
std::string formatMilli(std::int64_t milli, MetricUnit unit);
// The same for a Quantity (a status value, a target); values beyond the milli range saturate.
std::string formatQuantity(const Quantity& quantity, MetricUnit unit);

}  // namespace hpa::api
