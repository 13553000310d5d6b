#include "api/prometheus_matrix.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "api/quantity.h"
#include "common/json_value.h"
#include "common/quote.h"

namespace hpa::api {
namespace {

using nlohmann::json;

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
  const std::string text = v.get<std::string>();
  if (text == "NaN") return std::optional<std::int64_t>();
  if (text == "+Inf" || text == "-Inf" || text == "Inf")
    return Error::format("{}: not a finite value", quote(text));
  auto q = Quantity::parse(text);
  if (!q.ok()) return Error::format("{}: not a number", quote(text));
  return std::optional<std::int64_t>(q->milliValue());
}

Error at(const std::string& path, const std::string& message) {
  return Error::format("{}{}", path.empty() ? "" : path + ": ", message);
}

// The series' __name__ label, "" without one.
Result<std::string> seriesName(const json& series, const std::string& path) {
  const json& name = member(member(series, "metric"), "__name__");
  if (name.is_null()) return std::string();
  if (!name.is_string()) return at(path + ".metric.__name__", "expected a string");
  return name.get<std::string>();
}

Status addSeries(const json& series, const std::string& path, PrometheusMatrix& matrix) {
  const json& values = member(series, "values");
  if (!values.is_array()) return at(path + ".values", "expected an array");
  std::optional<Time> previous;
  for (std::size_t j = 0; j < values.size(); ++j) {
    const std::string vpath = fmt::format("{}.values[{}]", path, j);
    const json& pair = values[j];
    if (!pair.is_array() || pair.size() != 2) return at(vpath, "expected [timestamp, \"value\"]");
    auto instant = parseTimestamp(pair[0]);
    if (!instant.ok()) return at(vpath + "[0]", instant.error().message);
    if (previous && *instant <= *previous) return at(vpath + "[0]", "timestamps must increase");
    previous = *instant;
    auto value = parseSampleValue(pair[1]);
    if (!value.ok()) return at(vpath + "[1]", value.error().message);
    MatrixInstant& sum = matrix.instants[*instant];
    if (*value) {
      sum.sumMilli += **value;
      ++sum.series;
    }
  }
  return Status();
}

}  // namespace

Result<PrometheusMatrix> readPrometheusMatrix(const json& root) {
  if (!root.is_object())
    return at("", "expected a JSON object (a Prometheus query_range response)");
  if (stringValue(root, "status") != "success") {
    const json& error = member(root, "error");
    return at("status", fmt::format("{}: the query did not succeed{}",
                                    stringValue(root, "status", "(absent)"),
                                    error.is_null() ? "" : ": " + error.dump()));
  }
  const json& data = member(root, "data");
  if (!data.is_object()) return at("data", "expected an object");
  const std::string resultType = stringValue(data, "resultType");
  if (resultType != "matrix") {
    return at("data.resultType",
              fmt::format("{}: expected \"matrix\" (a range query; an instant query has one "
                          "value per series, no trace)",
                          quote(resultType)));
  }
  const json& result = member(data, "result");
  if (!result.is_array()) return at("data.result", "expected an array");
  PrometheusMatrix matrix;
  for (std::size_t i = 0; i < result.size(); ++i) {
    const std::string path = fmt::format("data.result[{}]", i);
    if (!result[i].is_object()) return at(path, "expected an object");
    auto name = seriesName(result[i], path);
    if (!name.ok()) return name.error();
    matrix.names.push_back(std::move(*name));
    if (auto added = addSeries(result[i], path, matrix); !added.ok()) return added.error();
  }
  return matrix;
}

}  // namespace hpa::api
