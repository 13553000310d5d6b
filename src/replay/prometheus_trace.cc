#include "replay/prometheus_trace.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "api/quantity.h"
#include "common/json_value.h"
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

Result<Time> parseTimestamp(const json& v) {
  if (!v.is_number()) return Error::of("expected a Unix timestamp (a number)");
  const double seconds = v.get<double>();
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e11)
    return Error::format("{}: not a plausible Unix time", v.dump());
  return Time(std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds)));
}

// A sample value: nullopt for NaN (a gap), else milli-units.
Result<std::optional<std::int64_t>> parseSampleValue(const json& v) {
  if (!v.is_string()) return Error::of("expected the value as a string, as Prometheus writes it");
  std::string text = v.get<std::string>();
  if (text == "NaN") return std::optional<std::int64_t>();
  if (text == "+Inf" || text == "-Inf" || text == "Inf")
    return Error::format("{}: not a finite value", quote(text));
  auto q = api::Quantity::parse(text);
  if (!q.ok()) return Error::format("{}: not a number", quote(text));
  return std::optional<std::int64_t>(q->milliValue());
}

class Reader {
 public:
  Reader(std::string_view name, const PrometheusSeriesOptions& options)
      : name_(name), options_(options) {}

  Result<Trace> read(const json& root) {
    if (!root.is_object())
      return fail("", "expected a JSON object (a Prometheus query_range response)");
    if (stringValue(root, "status") != "success") {
      return fail("status", fmt::format("{}: the query did not succeed{}",
                                        stringValue(root, "status", "(absent)"),
                                        root.contains("error") ? ": " + root["error"].dump() : ""));
    }
    const json* data = root.contains("data") ? &root["data"] : nullptr;
    if (!data || !data->is_object()) return fail("data", "expected an object");
    const std::string resultType = data->value("resultType", "");
    if (resultType != "matrix") {
      return fail("data.resultType",
                  fmt::format("{}: expected \"matrix\" (a range query; an instant query has one "
                              "value per series, no trace)",
                              quote(resultType)));
    }
    if (!data->contains("result") || !(*data)["result"].is_array())
      return fail("data.result", "expected an array");
    const json& result = (*data)["result"];
    if (result.empty()) return fail("data.result", "no series (the query matched nothing)");

    std::string metric = options_.metric;
    for (size_t i = 0; i < result.size(); ++i) {
      const std::string path = fmt::format("data.result[{}]", i);
      if (!result[i].is_object()) return fail(path, "expected an object");
      if (auto s = readSeries(result[i], path, metric); !s.ok()) return s.error();
    }
    if (metric.empty())
      return fail("data.result[0].metric", "no __name__ label: name the metric (METRIC=FILE)");

    Series series{metric, options_.kind, {}, std::string(name_)};
    std::optional<Time> origin;
    for (const auto& [at, acc] : sums_) {
      if (acc.count == 0) continue;
      if (!origin) origin = at;
      std::int64_t milli =
          options_.kind == SeriesKind::Total
              ? acc.sum
              : static_cast<std::int64_t>(std::llround(static_cast<double>(acc.sum) / acc.count));
      series.samples.push_back({at - *origin, milli});
    }
    if (series.samples.empty()) return fail("data.result", "no samples (or only NaN)");
    Trace trace;
    trace.origin = origin;
    trace.series.push_back(std::move(series));
    return trace;
  }

 private:
  struct Accumulator {
    std::int64_t sum = 0;
    int count = 0;
  };

  Status readSeries(const json& s, const std::string& path, std::string& metric) {
    if (s.contains("metric") && s["metric"].is_object() && s["metric"].contains("__name__") &&
        options_.metric.empty()) {
      const json& n = s["metric"]["__name__"];
      if (!n.is_string()) return fail(path + ".metric.__name__", "expected a string");
      if (metric.empty()) {
        metric = n.get<std::string>();
        firstNamePath_ = path;
      } else if (metric != n.get<std::string>()) {
        return fail(
            path + ".metric.__name__",
            fmt::format(
                "{} differs from {} of {}; one file holds one metric (name it: METRIC=FILE)",
                quote(n.get<std::string>()), quote(metric), firstNamePath_));
      }
    }
    if (!s.contains("values") || !s["values"].is_array())
      return fail(path + ".values", "expected an array");
    const json& values = s["values"];
    std::optional<Time> previous;
    for (size_t j = 0; j < values.size(); ++j) {
      const std::string vpath = fmt::format("{}.values[{}]", path, j);
      const json& pair = values[j];
      if (!pair.is_array() || pair.size() != 2)
        return fail(vpath, "expected [timestamp, \"value\"]");
      auto at = parseTimestamp(pair[0]);
      if (!at.ok()) return fail(vpath + "[0]", at.error().message);
      if (previous && *at <= *previous) return fail(vpath + "[0]", "timestamps must increase");
      previous = *at;
      auto value = parseSampleValue(pair[1]);
      if (!value.ok()) return fail(vpath + "[1]", value.error().message);
      auto& acc = sums_[*at];
      if (*value) {
        acc.sum += **value;
        ++acc.count;
      }
    }
    return Status();
  }

  Error fail(const std::string& path, const std::string& message) const {
    return Error::format("{}: {}{}", name_, path.empty() ? "" : path + ": ", message);
  }

  std::string_view name_;
  const PrometheusSeriesOptions& options_;
  std::map<Time, Accumulator> sums_;
  std::string firstNamePath_;
};

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
  return Reader(name, options).read(root);
}

}  // namespace hpa::replay
