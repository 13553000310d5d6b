#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/time.h"

namespace hpa::replay {

// How a series' values relate to the pods of the workload.
enum class SeriesKind {
  // The workload's total (e.g. its whole cpu demand): spread evenly over the Ready pods, so
  // that scaling out lowers each pod's value as real load does. Object and External metrics
  // take it as is.
  Total,
  // What every Ready pod reports, however many there are.
  PerPod,
};
const char* seriesKindName(SeriesKind kind);
Result<SeriesKind> parseSeriesKind(std::string_view text);

struct Sample {
  Duration at{0};          // from the start of the trace
  std::int64_t milli = 0;  // the value in milli-units of the metric's unit (cpu: millicores)
  bool operator==(const Sample&) const = default;
};

// The recorded values of one metric. Between samples the last value holds (a step function),
// as a metrics pipeline reports the latest sample it has.
struct Series {
  std::string metric;  // the name the HPA knows it by: a resource (cpu) or a metric name
  SeriesKind kind = SeriesKind::Total;
  std::vector<Sample> samples;  // in time order
  std::string source;           // "file.csv" for messages

  // The value at `at`: the last sample at or before it; nullopt before the first one.
  std::optional<std::int64_t> valueAt(Duration at) const;
};

// A replica count recorded next to the metrics (the demo's trajectory.csv has them): shown next
// to the replay for comparison, never fed into it.
struct RecordedReplicas {
  Duration at{0};
  std::int32_t current = 0;  // status.currentReplicas: the replicas the last sync read
  std::int32_t desired = 0;  // status.desiredReplicas: what it set
  bool operator==(const RecordedReplicas&) const = default;

  // The replica count the recording shows at this sample: the desired count (set by the sync
  // before the sample; current lags one sync behind), or the current one while the HPA had no
  // desired count yet (its first syncs, before metrics were available).
  std::int32_t replicas() const { return desired > 0 ? desired : current; }
};

struct Trace {
  std::vector<Series> series;
  std::vector<RecordedReplicas> recorded;
  // When the file carried absolute times (RFC 3339, Unix timestamps): the instant of offset 0.
  std::optional<Time> origin;

  const Series* find(const std::string& metric) const;
  // The offset of the last sample of any series (and of the recorded replicas).
  Duration end() const;
};

// Joins traces read from several files into one. Traces with absolute times are aligned on
// their instants (offset 0 is the earliest of them); traces with relative times start at 0. A
// metric appearing in two files is an error naming both.
Result<Trace> mergeTraces(std::vector<Trace> traces);

}  // namespace hpa::replay
