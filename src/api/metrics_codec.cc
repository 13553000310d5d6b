#include "api/codec.h"
#include "api/codec_internal.h"
#include "common/quote.h"

namespace hpa::api {
namespace {

using nlohmann::json;

constexpr std::string_view kCustomV1beta1 = "custom.metrics.k8s.io/v1beta1";
constexpr std::string_view kCustomV1beta2 = "custom.metrics.k8s.io/v1beta2";
constexpr std::string_view kExternalV1beta1 = "external.metrics.k8s.io/v1beta1";

// Windows are added to and subtracted from timestamps (parsed times lie within 2^62 ns of the
// epoch); one of at most as much keeps that arithmetic inside int64.
constexpr std::int64_t kMaxWindowSeconds = kParsedTimeLimitNanos / 1000000000;

std::optional<std::int64_t> readWindowSeconds(const JsonFields& f, std::string_view key) {
  auto w = f.int64(key);
  if (w && (*w > kMaxWindowSeconds || *w < -kMaxWindowSeconds)) {
    f.fail(key, fmt::format("value {} out of range (at most {} seconds)", *w, kMaxWindowSeconds));
    return std::nullopt;
  }
  return w;
}

PodMetrics readPodMetrics(const JsonFields& f) {
  PodMetrics m;
  m.metadata = detail::readObjectMeta(f.object("metadata"));
  m.timestamp = f.time("timestamp").value_or(Time{});
  m.window = f.goDuration("window").value_or(Duration(0));
  if (m.window.count() > kMaxWindowSeconds * 1000000000 ||
      m.window.count() < -kMaxWindowSeconds * 1000000000) {
    f.fail("window", fmt::format("{} out of range (at most {} seconds)", formatGoDuration(m.window),
                                 kMaxWindowSeconds));
  }
  f.forEach("containers", [&](const JsonFields& c, size_t) {
    ContainerMetrics cm;
    cm.name = c.string("name").value_or("");
    auto usage = c.object("usage");
    if (usage.present()) {
      for (auto it = usage.node()->begin(); it != usage.node()->end(); ++it) {
        if (auto q = usage.quantity(it.key())) cm.usage.emplace(it.key(), *q);
      }
    }
    m.containers.push_back(std::move(cm));
  });
  return m;
}

MetricObjectReference readObjectReference(const JsonFields& f) {
  return {f.string("kind").value_or(""), f.string("namespace").value_or(""),
          f.string("name").value_or(""), f.string("apiVersion").value_or("")};
}

MetricValue readMetricValue(const JsonFields& f, std::string_view apiVersion) {
  MetricValue v;
  v.describedObject = readObjectReference(f.object("describedObject"));
  v.timestamp = f.time("timestamp").value_or(Time{});
  v.value = f.quantity("value").value_or(Quantity());
  if (apiVersion == kCustomV1beta1) {
    v.metricName = f.string("metricName").value_or("");
    v.windowSeconds = readWindowSeconds(f, "window");
    v.metricSelector = detail::readOptionalLabelSelector(f, "selector");
  } else {
    auto metric = f.object("metric");
    v.metricName = metric.string("name").value_or("");
    v.metricSelector = detail::readOptionalLabelSelector(metric, "selector");
    v.windowSeconds = readWindowSeconds(f, "windowSeconds");
  }
  return v;
}

Error wrongKind(std::string_view want, const JsonFields& f) {
  return Error::format("expected kind {}, got {}", want, quote(f.string("kind").value_or("")));
}

// A list decoded as upstream's typed clients decode it: a body without a kind is taken as the
// kind asked for, one naming another kind is refused (a misrouted or hostile answer).
bool namesAnotherKind(const JsonFields& f, std::string_view want) {
  auto kind = f.string("kind");
  return kind && *kind != want;
}

ExternalMetricValue readExternalValue(const JsonFields& f) {
  ExternalMetricValue v;
  v.metricName = f.string("metricName").value_or("");
  v.metricLabels = f.stringMap("metricLabels").value_or(std::map<std::string, std::string>{});
  v.timestamp = f.time("timestamp").value_or(Time{});
  v.windowSeconds = readWindowSeconds(f, "window");
  v.value = f.quantity("value").value_or(Quantity());
  return v;
}

// A typed list (kind `kind`, or none) whose items `read` decodes.
template <typename List, typename Read>
Result<List> decodeTypedList(const nlohmann::json& j, std::string_view kind, Read read) {
  auto f = JsonFields::root(j);
  if (namesAnotherKind(f, kind)) return wrongKind(kind, f);
  List list;
  f.forEach("items", [&](const JsonFields& item, size_t) { list.items.push_back(read(item)); });
  return detail::finish(f, std::move(list));
}

}  // namespace

Result<PodMetrics> decodePodMetrics(const nlohmann::json& j) {
  auto f = JsonFields::root(j);
  return detail::finish(f, readPodMetrics(f));
}

Result<PodMetricsList> decodePodMetricsList(const nlohmann::json& j) {
  return decodeTypedList<PodMetricsList>(j, "PodMetricsList", readPodMetrics);
}

nlohmann::json encodePodMetrics(const PodMetrics& m, std::string_view apiVersion) {
  json containers = json::array();
  for (const auto& c : m.containers) {
    json usage = json::object();
    for (const auto& [name, q] : c.usage) usage[name] = q.toString();
    containers.push_back(json{{"name", c.name}, {"usage", usage}});
  }
  return json{{"apiVersion", apiVersion},
              {"kind", "PodMetrics"},
              {"metadata", encodeObjectMeta(m.metadata)},
              {"timestamp", formatRFC3339(m.timestamp)},
              {"window", formatGoDuration(m.window)},
              {"containers", containers}};
}

Result<MetricValue> decodeMetricValue(const nlohmann::json& j, std::string_view apiVersion) {
  if (apiVersion != kCustomV1beta1 && apiVersion != kCustomV1beta2) {
    return Error::format("unknown custom metrics apiVersion {}", quote(apiVersion));
  }
  auto f = JsonFields::root(j);
  return detail::finish(f, readMetricValue(f, apiVersion));
}

Result<MetricValueList> decodeMetricValueList(const nlohmann::json& j) {
  auto f = JsonFields::root(j);
  MetricValueList list;
  list.apiVersion = f.string("apiVersion").value_or("");
  if (f.failed()) return f.error();
  if (f.string("kind").value_or("") != "MetricValueList") return wrongKind("MetricValueList", f);
  if (list.apiVersion != kCustomV1beta1 && list.apiVersion != kCustomV1beta2) {
    return Error::format("unknown custom metrics apiVersion {}", quote(list.apiVersion));
  }
  f.forEach("items", [&](const JsonFields& item, size_t) {
    list.items.push_back(readMetricValue(item, list.apiVersion));
  });
  return detail::finish(f, std::move(list));
}

nlohmann::json encodeMetricValueList(const MetricValueList& list, std::string_view apiVersion) {
  json items = json::array();
  for (const auto& v : list.items) {
    json obj{{"kind", v.describedObject.kind}, {"name", v.describedObject.name}};
    if (!v.describedObject.namespace_.empty()) obj["namespace"] = v.describedObject.namespace_;
    if (!v.describedObject.apiVersion.empty()) obj["apiVersion"] = v.describedObject.apiVersion;
    json item{{"describedObject", obj},
              {"timestamp", formatRFC3339(v.timestamp)},
              {"value", v.value.toString()}};
    if (apiVersion == kCustomV1beta1) {
      item["metricName"] = v.metricName;
      if (v.windowSeconds) item["window"] = *v.windowSeconds;
      if (v.metricSelector) item["selector"] = encodeLabelSelector(*v.metricSelector);
    } else {
      json metric{{"name", v.metricName}};
      if (v.metricSelector) metric["selector"] = encodeLabelSelector(*v.metricSelector);
      item["metric"] = metric;
      if (v.windowSeconds) item["windowSeconds"] = *v.windowSeconds;
    }
    items.push_back(std::move(item));
  }
  return json{{"kind", "MetricValueList"},
              {"apiVersion", apiVersion},
              {"metadata", json::object()},
              {"items", items}};
}

Result<ExternalMetricValue> decodeExternalMetricValue(const nlohmann::json& j) {
  auto f = JsonFields::root(j);
  return detail::finish(f, readExternalValue(f));
}

Result<ExternalMetricValueList> decodeExternalMetricValueList(const nlohmann::json& j) {
  return decodeTypedList<ExternalMetricValueList>(j, "ExternalMetricValueList", readExternalValue);
}

nlohmann::json encodeExternalMetricValueList(const ExternalMetricValueList& list) {
  json items = json::array();
  for (const auto& v : list.items) {
    json item{{"metricName", v.metricName},
              {"timestamp", formatRFC3339(v.timestamp)},
              {"value", v.value.toString()}};
    item["metricLabels"] = v.metricLabels.empty() ? json::object() : json(v.metricLabels);
    if (v.windowSeconds) item["window"] = *v.windowSeconds;
    items.push_back(std::move(item));
  }
  return json{{"kind", "ExternalMetricValueList"},
              {"apiVersion", kExternalV1beta1},
              {"metadata", json::object()},
              {"items", items}};
}

}  // namespace hpa::api
