#include "replay/trace.h"

#include <algorithm>

#include "common/quote.h"

namespace hpa::replay {

const char* seriesKindName(SeriesKind kind) {
  return kind == SeriesKind::Total ? "total" : "per-pod";
}

Result<SeriesKind> parseSeriesKind(std::string_view text) {
  if (text == "total") return SeriesKind::Total;
  if (text == "per-pod") return SeriesKind::PerPod;
  return Error::format("kind {}: expected total or per-pod", quote(text));
}

std::optional<std::int64_t> Series::valueAt(Duration at) const {
  // The first sample after `at`; the one before it holds.
  auto after = std::upper_bound(samples.begin(), samples.end(), at,
                                [](Duration t, const Sample& s) { return t < s.at; });
  if (after == samples.begin()) return std::nullopt;
  return std::prev(after)->milli;
}

const Series* Trace::find(const std::string& metric) const {
  for (const auto& s : series) {
    if (s.metric == metric) return &s;
  }
  return nullptr;
}

Duration Trace::end() const {
  Duration end{0};
  for (const auto& s : series) {
    if (!s.samples.empty()) end = std::max(end, s.samples.back().at);
  }
  for (const auto& r : recorded) end = std::max(end, r.at);
  return end;
}

Result<Trace> mergeTraces(std::vector<Trace> traces) {
  std::optional<Time> origin;
  for (const auto& t : traces) {
    if (t.origin && (!origin || *t.origin < *origin)) origin = t.origin;
  }
  Trace merged;
  merged.origin = origin;
  for (auto& t : traces) {
    const Duration shift = t.origin ? *t.origin - *origin : Duration{0};
    for (auto& s : t.series) {
      if (const Series* other = merged.find(s.metric)) {
        return Error::format("metric {} is in two traces ({} and {})", s.metric, other->source,
                             s.source);
      }
      for (auto& sample : s.samples) sample.at += shift;
      merged.series.push_back(std::move(s));
    }
    for (auto& r : t.recorded) {
      r.at += shift;
      merged.recorded.push_back(r);
    }
  }
  std::sort(merged.recorded.begin(), merged.recorded.end(),
            [](const RecordedReplicas& a, const RecordedReplicas& b) { return a.at < b.at; });
  return merged;
}

}  // namespace hpa::replay
