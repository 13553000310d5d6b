#include "replay/trace_history.h"

#include <algorithm>

#include "common/quote.h"

namespace hpa::replay {
namespace {

// The grid instant at or before `t`: a multiple of `step` since the Unix epoch.
Time gridFloor(Time t, Duration step) {
  const auto n = t.time_since_epoch().count();
  auto buckets = n / step.count();
  if (n % step.count() < 0) --buckets;
  return Time(step * buckets);
}

double inUnit(std::int64_t milli) { return static_cast<double>(milli) / 1000.0; }

// The offset of the first sample after `at`: the samples before it are visible at `at`.
std::vector<Sample>::const_iterator firstAfter(const Series& series, Duration at) {
  return std::upper_bound(series.samples.begin(), series.samples.end(), at,
                          [](Duration t, const Sample& s) { return t < s.at; });
}

}  // namespace

Result<controls::History> TraceHistory::history(const controls::HistoryRequest& request, Time now) {
  const Series* series = trace_.find(request.metric);
  if (series == nullptr) {
    return Error::format("the trace has no series {} to forecast from", quote(request.metric));
  }
  if (series->kind != SeriesKind::Total) {
    return Error::format(
        "the trace's series {} is per pod: a forecast reads the workload's total (a total series)",
        quote(request.metric));
  }
  const bool onGrid = request.step > Duration::zero();
  std::optional<Time> newest;
  if (onGrid) {
    newest = gridFloor(now, request.step);
  } else if (auto after = firstAfter(*series, now - origin_); after != series->samples.begin()) {
    newest = origin_ + std::prev(after)->at;
  }
  const bool sameRequest = served_ && served_->metric == request.metric &&
                           served_->step == request.step && served_->range == request.range;
  if (sameRequest && served_->newest == newest) return served_->history;

  std::optional<Served> previous;
  if (sameRequest) previous = std::move(served_);
  Served next{request.metric, request.step, request.range, newest, {}};
  next.history.samples = std::make_shared<const std::vector<forecast::Sample>>(
      onGrid ? gridPoints(*series, previous ? &*previous : nullptr, request, now)
             : rawSamples(*series, request.range, now));
  next.history.version = ++version_;
  served_ = std::move(next);
  return served_->history;
}

// The grid's points in (now - range, now]. Those the previous answer holds are kept as they
// were (a grid instant's value never changes once it has passed); only newer instants are read.
std::vector<forecast::Sample> TraceHistory::gridPoints(const Series& series, const Served* previous,
                                                       const controls::HistoryRequest& request,
                                                       Time now) const {
  std::vector<forecast::Sample> out;
  if (series.samples.empty()) return out;
  const Duration step = request.step;
  const Time from = now - request.range;  // exclusive
  // The first grid instant after `from` that the trace covers.
  Time next = std::max(gridFloor(from, step) + step,
                       gridFloor(origin_ + series.samples.front().at - Duration(1), step) + step);
  if (previous != nullptr && !previous->history.samples->empty()) {
    for (const forecast::Sample& s : *previous->history.samples) {
      if (s.at > from) out.push_back(s);
    }
    next = std::max(next, previous->history.samples->back().at + step);
  }
  const Time newest = gridFloor(now, step);
  for (Time t = next; t <= newest; t += step) {
    if (auto value = series.valueAt(t - origin_)) out.push_back({t, inUnit(*value)});
  }
  return out;
}

std::vector<forecast::Sample> TraceHistory::rawSamples(const Series& series, Duration range,
                                                       Time now) const {
  std::vector<forecast::Sample> out;
  const Time from = now - range;
  const auto end = firstAfter(series, now - origin_);
  for (auto s = series.samples.begin(); s != end; ++s) {
    if (origin_ + s->at > from) out.push_back({origin_ + s->at, inUnit(s->milli)});
  }
  return out;
}

}  // namespace hpa::replay
