#include "replay/trace_reader.h"

#include "replay/csv_trace.h"
#include "replay/prometheus_trace.h"

namespace hpa::replay {

Result<TraceArgument> parseTraceArgument(std::string_view text) {
  TraceArgument out;
  auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    out.file = std::string(text);
  } else {
    std::string_view naming = text.substr(0, eq);
    out.file = std::string(text.substr(eq + 1));
    auto comma = naming.find(',');
    out.metric = std::string(naming.substr(0, comma));
    if (comma != std::string_view::npos) {
      auto kind = parseSeriesKind(naming.substr(comma + 1));
      if (!kind.ok()) return Error::format("--trace {}: {}", text, kind.error().message);
      out.kind = *kind;
    }
    if (out.metric.empty()) return Error::format("--trace {}: empty metric name before '='", text);
  }
  if (out.file.empty()) return Error::format("--trace {}: no file", text);
  return out;
}

Result<Trace> readTrace(std::string_view name, std::string_view text,
                        const TraceArgument& argument) {
  auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    return readPrometheusTrace(name, text,
                               {argument.metric, argument.kind.value_or(SeriesKind::Total)});
  }
  if (!argument.metric.empty()) {
    return Error::format(
        "{}: a CSV trace names its metrics in its metric column; METRIC=FILE is for Prometheus "
        "exports",
        name);
  }
  return readCsvTrace(name, text);
}

}  // namespace hpa::replay
