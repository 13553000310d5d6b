#include "controls/forecast_spec.h"

#include <fmt/format.h>

#include <cmath>

#include "common/quote.h"
#include "common/yaml_json.h"

namespace hpa::controls {
namespace {

using nlohmann::json;

Result<std::string> stringField(const json& value, const std::string& key) {
  if (!value.is_string()) return Error::format("{} must be a string", key);
  return value.get<std::string>();
}

Result<double> numberField(const json& value, const std::string& key) {
  if (!value.is_number()) return Error::format("{} must be a number", key);
  return value.get<double>();
}

Status readMode(const json& value, ForecastSpec& out) {
  auto text = stringField(value, "mode");
  if (!text.ok()) return text.error();
  for (auto mode : {ForecastMode::Preview, ForecastMode::Active}) {
    if (*text == forecastModeName(mode)) {
      out.mode = mode;
      return Status();
    }
  }
  return Error::format("mode {} must be Preview or Active", quote(*text));
}

Status readTrend(const json& value, ForecastSpec& out) {
  auto text = stringField(value, "trend");
  if (!text.ok()) return text.error();
  for (auto trend : {forecast::TrendAdjustment::kRatio, forecast::TrendAdjustment::kDifference,
                     forecast::TrendAdjustment::kNone}) {
    if (*text == trendName(trend)) {
      out.trend = trend;
      return Status();
    }
  }
  return Error::format("trend {} must be Ratio, Difference or None", quote(*text));
}

// A Go duration field from 0s to `most`: `field` receives it.
Status readDuration(const json& value, const std::string& key, Duration most,
                    std::optional<Duration>& field) {
  auto text = stringField(value, key);
  if (!text.ok()) return text.error();
  auto duration = parseGoDuration(*text);
  if (!duration.ok()) return duration.error().wrap(key);
  if (*duration < Duration::zero() || *duration > most)
    return Error::format("{} must be between 0s and {}", key, formatGoDuration(most));
  field = *duration;
  return Status();
}

Status readForgetBefore(const json& value, ForecastSpec& out) {
  auto text = stringField(value, "forgetBefore");
  if (!text.ok()) return text.error();
  auto at = parseRFC3339(*text);
  if (!at.ok()) return at.error().wrap("forgetBefore");
  out.forgetBefore = *at;
  return Status();
}

Status readCycles(const json& value, ForecastSpec& out) {
  if (!value.is_number_integer() || value.get<std::int64_t>() < 1 || value.get<std::int64_t>() > 52)
    return Error::of("cycles must be a whole number from 1 to 52");
  out.cycles = static_cast<int>(value.get<std::int64_t>());
  return Status();
}

// A number field of the options: `field` receives it.
Status readNumber(const json& value, const std::string& key, std::optional<double>& field) {
  auto number = numberField(value, key);
  if (!number.ok()) return number.error();
  field = *number;
  return Status();
}

// One key of the annotation's object.
Status readField(const std::string& key, const json& value, ForecastSpec& out) {
  if (key == "mode") return readMode(value, out);
  if (key == "metric") {
    auto text = stringField(value, key);
    if (!text.ok()) return text.error();
    out.metric = *text;
    return Status();
  }
  if (key == "query") {
    auto text = stringField(value, key);
    if (!text.ok()) return text.error();
    if (text->empty()) return Error::of("query must not be empty");
    out.query = *text;
    return Status();
  }
  if (key == "lead") return readDuration(value, key, kMaxForecastLead, out.lead);
  if (key == "forgetBefore") return readForgetBefore(value, out);
  if (key == "cycles") return readCycles(value, out);
  if (key == "quantile") return readNumber(value, key, out.quantile);
  if (key == "margin") return readNumber(value, key, out.margin);
  if (key == "minStrength") return readNumber(value, key, out.minStrength);
  if (key == "trend") return readTrend(value, out);
  if (key == "recent") return readDuration(value, key, kMaxForecastRecent, out.recent);
  return Error::format("unknown field {}", quote(key));
}

// The metric the annotation names (or the first one), and a target a floor can be made of.
Status resolveMetric(const std::vector<api::MetricSpec>& metrics, ForecastSpec& out) {
  if (metrics.empty()) return Error::of("the HPA has no metrics to forecast");
  if (out.metric.empty()) {
    out.metricIndex = 0;
  } else {
    std::size_t i = 0;
    while (i < metrics.size() && api::metricNameOf(metrics[i]) != out.metric) ++i;
    if (i == metrics.size())
      return Error::format("metric {} is not among spec.metrics", quote(out.metric));
    out.metricIndex = i;
  }
  const auto& spec = metrics[out.metricIndex];
  out.metric = api::metricNameOf(spec);
  const auto* target = api::targetOf(spec);
  if (!target) return Error::format("metric {} has no known type", quote(out.metric));
  if (target->averageUtilization && target->type == api::kUtilizationTarget) return Status();
  if (target->averageValue && target->type == api::kAverageValueTarget) return Status();
  return Error::format(
      "metric {} has a {} target: a floor needs a Utilization or AverageValue target (replicas "
      "= total / target per pod)",
      quote(out.metric), target->type);
}

// The annotation's query, or the default for cpu and memory.
Status resolveQuery(const api::HorizontalPodAutoscaler& hpa, ForecastSpec& out) {
  if (!out.query.empty()) return Status();
  const auto& spec = hpa.spec.metrics[out.metricIndex];
  std::string container;
  if (const auto* c = spec.as<api::ContainerResourceMetricSource>()) container = c->container;
  const bool resource = spec.as<api::ResourceMetricSource>() || !container.empty();
  if (resource) {
    out.query = defaultForecastQuery(out.metric, container, hpa.metadata.namespace_,
                                     hpa.spec.scaleTargetRef.name);
  }
  if (out.query.empty()) {
    return Error::format(
        "metric {} needs a query: only cpu and memory have a default (from cAdvisor's series)",
        quote(out.metric));
  }
  out.defaultQuery = true;
  return Status();
}

// A regular expression's metacharacters escaped, inside a PromQL double-quoted string.
std::string promRegexLiteral(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '.') {
      out += "\\\\.";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

const char* forecastModeName(ForecastMode mode) {
  switch (mode) {
    case ForecastMode::Preview:
      return "Preview";
    case ForecastMode::Active:
      return "Active";
  }
  return "";
}

const char* trendName(forecast::TrendAdjustment trend) {
  switch (trend) {
    case forecast::TrendAdjustment::kRatio:
      return "Ratio";
    case forecast::TrendAdjustment::kDifference:
      return "Difference";
    case forecast::TrendAdjustment::kNone:
      return "None";
  }
  return "";
}

forecast::ForecastOptions ForecastSpec::options() const {
  forecast::ForecastOptions o;
  if (cycles) o.cycles = *cycles;
  if (quantile) o.quantile = *quantile;
  if (margin) o.margin = *margin;
  if (minStrength) o.minStrength = *minStrength;
  if (trend) o.trend = *trend;
  if (forgetBefore) o.forgetBefore = *forgetBefore;
  if (recent) o.recent = *recent;
  return o;
}

std::string defaultForecastQuery(const std::string& resource, const std::string& container,
                                 const std::string& ns, const std::string& targetName) {
  const std::string containerMatch =
      container.empty() ? std::string("container!=\"\"")
                        : fmt::format("container=\"{}\"", promRegexLiteral(container));
  const std::string selector = fmt::format("namespace=\"{}\",pod=~\"{}-.*\",{}", ns,
                                           promRegexLiteral(targetName), containerMatch);
  if (resource == "cpu")
    return fmt::format("sum(rate(container_cpu_usage_seconds_total{{{}}}[5m]))", selector);
  if (resource == "memory")
    return fmt::format("sum(container_memory_working_set_bytes{{{}}})", selector);
  return "";
}

Result<ForecastSpec> parseForecast(std::string_view text, const api::HorizontalPodAutoscaler& hpa) {
  auto documents = yamlDocumentsToJson(text);
  if (!documents.ok()) return documents.error();
  if (documents->size() != 1 || !(*documents)[0].is_object())
    return Error::of("must be a YAML or JSON object (mode, metric, query, lead, ...)");
  ForecastSpec out;
  for (const auto& [key, value] : (*documents)[0].items()) {
    if (auto read = readField(key, value, out); !read.ok()) return read.error();
  }
  if (auto valid = forecast::validate(out.options()); !valid.ok()) return valid.error();
  if (auto metric = resolveMetric(hpa.spec.metrics, out); !metric.ok()) return metric.error();
  if (auto query = resolveQuery(hpa, out); !query.ok()) return query.error();
  return out;
}

double roundForecastValue(double value) {
  if (value == 0 || !std::isfinite(value)) return value;
  // Powers of ten are exact: multiply or divide by one, never by a tenth, so 2.4 stays 2.4.
  const double exponent = std::floor(std::log10(std::fabs(value))) - 1;
  if (exponent >= 0) {
    const double unit = std::pow(10.0, exponent);
    return std::round(value / unit) * unit;
  }
  const double scale = std::pow(10.0, -exponent);
  return std::round(value * scale) / scale;
}

double roundConfidence(double confidence) { return std::round(confidence * 10) / 10; }

std::string recentWords(double ratio, Duration recent) {
  return fmt::format("{}: the last {} ran at {:.0f} % of its forecast",
                     ratio > 1 ? "raised" : "lowered", formatGoDuration(recent), ratio * 100);
}

std::string describeForecast(const ForecastSpec& spec) {
  return fmt::format("{} on {}", forecastModeName(spec.mode), spec.metric);
}

}  // namespace hpa::controls
