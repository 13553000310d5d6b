#include "replay/prometheus_trace.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "api/prometheus_matrix.h"
#include "common/quote.h"

namespace hpa::replay {
namespace {

using nlohmann::json;

// "line L column C" of a byte offset, for parse errors.
std::pair<int, int> lineColumn(std::string_view text, size_t byte) {
  int line = 1;
  int column = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// The metric's name: the one given, else the __name__ every series carries.
Result<std::string> metricName(const api::PrometheusMatrix& matrix,
                               const PrometheusSeriesOptions& options) {
  if (!options.metric.empty()) return options.metric;
  std::string metric;
  std::size_t first = 0;
  for (std::size_t i = 0; i < matrix.names.size(); ++i) {
    const std::string& name = matrix.names[i];
    if (name.empty()) continue;
    if (metric.empty()) {
      metric = name;
      first = i;
    } else if (name != metric) {
      return Error::format(
          "data.result[{}].metric.__name__: {} differs from {} of data.result[{}]; one file holds "
          "one metric (name it: METRIC=FILE)",
          i, quote(name), quote(metric), first);
    }
  }
  if (metric.empty())
    return Error::of("data.result[0].metric: no __name__ label: name the metric (METRIC=FILE)");
  return metric;
}

// The matrix as one series of the trace: the sum at each instant for a total, the mean of the
// series present there for a per-pod one.
Result<Trace> toTrace(std::string_view name, const api::PrometheusMatrix& matrix,
                      const PrometheusSeriesOptions& options) {
  if (matrix.names.empty())
    return Error::format("{}: data.result: no series (the query matched nothing)", name);
  auto metric = metricName(matrix, options);
  if (!metric.ok()) return metric.error().wrap(name);
  Series series{*metric, options.kind, {}, std::string(name)};
  std::optional<Time> origin;
  for (const auto& [instant, sum] : matrix.instants) {
    if (sum.series == 0) continue;
    if (!origin) origin = instant;
    const std::int64_t milli = options.kind == SeriesKind::Total
                                   ? sum.sumMilli
                                   : static_cast<std::int64_t>(std::llround(
                                         static_cast<double>(sum.sumMilli) / sum.series));
    series.samples.push_back({instant - *origin, milli});
  }
  if (series.samples.empty())
    return Error::format("{}: data.result: no samples (or only NaN)", name);
  Trace trace;
  trace.origin = origin;
  trace.series.push_back(std::move(series));
  return trace;
}

}  // namespace

Result<Trace> readPrometheusTrace(std::string_view name, std::string_view text,
                                  const PrometheusSeriesOptions& options) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    auto [line, column] = lineColumn(text, e.byte == 0 ? 0 : e.byte - 1);
    std::string what = e.what();
    // nlohmann's text starts with "[json.exception.parse_error.101] parse error at line L, column
    // C: ".
    if (auto colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return Error::format("{}:{}:{}: invalid JSON: {}", name, line, column, what);
  }
  auto matrix = api::readPrometheusMatrix(root);
  if (!matrix.ok()) return matrix.error().wrap(name);
  return toTrace(name, *matrix, options);
}

}  // namespace hpa::replay
