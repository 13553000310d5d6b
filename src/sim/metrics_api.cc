#include "sim/metrics_api.h"

#include <fmt/format.h>

#include <sstream>

#include "api/label_selector.h"
#include "api/quantity.h"

namespace hpa::sim {
namespace {

using nlohmann::json;

constexpr int kWindowSeconds = 30;

json status(int code, const std::string& reason, const std::string& message) {
  return {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
          {"status", "Failure"}, {"message", message}, {"reason", reason},
          {"code", code}};
}

ApiResponse error(int code, const std::string& reason, const std::string& message) {
  return {code, status(code, reason, message)};
}

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> out;
  std::stringstream s(path);
  std::string part;
  while (std::getline(s, part, '/')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

std::string quantity(std::int64_t milli,
                     api::QuantityFormat format = api::QuantityFormat::DecimalSI) {
  return api::Quantity::fromMilli(milli, format).toString();
}

json resourceList(const std::string& groupVersion,
                  const std::vector<std::pair<std::string, std::string>>& resources) {
  json list = json::array();
  for (const auto& [name, kind] : resources) {
    list.push_back({{"name", name},
                    {"singularName", ""},
                    {"namespaced", name != "nodes"},
                    {"kind", kind},
                    {"verbs", {"get", "list"}}});
  }
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", groupVersion},
          {"resources", list}};
}

json podMetricsItem(const PodUsage& u, const std::string& timestamp) {
  json containers = json::array();
  const auto n = static_cast<std::int64_t>(std::max<size_t>(u.pod->containers.size(), 1));
  for (size_t i = 0; i < std::max<size_t>(u.pod->containers.size(), 1); ++i) {
    std::string name = u.pod->containers.empty() ? "app" : u.pod->containers[i];
    // The pod's usage split over its containers (the first takes the rounding remainder).
    std::int64_t cpu = u.cpuMilli / n + (i == 0 ? u.cpuMilli % n : 0);
    std::int64_t mem = u.memoryBytes / n + (i == 0 ? u.memoryBytes % n : 0);
    containers.push_back({{"name", name},
                          {"usage",
                           {{"cpu", quantity(cpu)},
                            {"memory", quantity(mem * 1000, api::QuantityFormat::BinarySI)}}}});
  }
  return {{"metadata",
           {{"name", u.pod->name},
            {"namespace", u.pod->namespace_},
            {"labels", u.pod->labels.toMap()},
            {"creationTimestamp", timestamp}}},
          {"timestamp", timestamp},
          {"window", fmt::format("{}s", kWindowSeconds)},
          {"containers", containers}};
}

json metricValue(const std::string& version, const json& describedObject, const std::string& metric,
                 std::int64_t milli, const std::string& timestamp) {
  json item{
      {"describedObject", describedObject}, {"timestamp", timestamp}, {"value", quantity(milli)}};
  if (version == "v1beta1") {
    item["metricName"] = metric;
    item["window"] = kWindowSeconds;
  } else {
    item["metric"] = {{"name", metric}, {"selector", nullptr}};
    item["windowSeconds"] = kWindowSeconds;
  }
  return item;
}

std::string queryValue(const std::map<std::string, std::string>& q, const std::string& k) {
  auto it = q.find(k);
  return it == q.end() ? "" : it->second;
}

}  // namespace

const std::vector<ServedVersion>& servedVersions() {
  static const std::vector<ServedVersion> all = {{"metrics.k8s.io", "v1beta1", 100},
                                                 {"custom.metrics.k8s.io", "v1beta1", 100},
                                                 {"custom.metrics.k8s.io", "v1beta2", 200},
                                                 {"external.metrics.k8s.io", "v1beta1", 100}};
  return all;
}

ApiResponse serveMetricsApi(const std::string& path,
                            const std::map<std::string, std::string>& query,
                            const std::vector<SimPod>& pods, LoadModel& model, Time now) {
  PodIndex index([&model](const std::string& ns, const api::Labels& labels) {
    return model.classify(ns, labels);
  });
  for (const auto& p : pods) index.upsert(p);
  return serveMetricsApi(path, query, index, model, now);
}

namespace {

// A namespaced request of one of the three metrics APIs, its path split.
struct MetricsRequest {
  std::vector<std::string> parts;  // apis, group, version, namespaces, NS, ...
  std::string version;
  std::string groupVersion;
  std::string ns;
  api::Selector selector;
  std::string timestamp;
};

// metrics.k8s.io: one pod's metrics, or the list of the selector's.
ApiResponse serveResourceMetrics(const MetricsRequest& r, const PodIndex& pods, LoadModel& model) {
  const auto& parts = r.parts;
  if (parts.size() < 6 || parts[5] != "pods") return error(404, "NotFound", "only pods are served");
  if (parts.size() == 7) {
    auto pod = pods.get(r.ns, parts[6]);
    auto usage = pod ? model.resourceUsage(std::vector<PodView>{*pod}) : std::vector<PodUsage>{};
    if (usage.empty())
      return error(404, "NotFound",
                   fmt::format("podmetrics.metrics.k8s.io \"{}\" not found", parts[6]));
    json item = podMetricsItem(usage.front(), r.timestamp);
    item["kind"] = "PodMetrics";
    item["apiVersion"] = r.groupVersion;
    return {200, item};
  }
  const auto selected = pods.select(r.ns, r.selector);
  json items = json::array();
  for (const auto& u : model.resourceUsage(selected))
    items.push_back(podMetricsItem(u, r.timestamp));
  return {200,
          {{"kind", "PodMetricsList"},
           {"apiVersion", r.groupVersion},
           {"metadata", json::object()},
           {"items", items}}};
}

// custom.metrics.k8s.io: a metric of the selector's pods, or of one object.
ApiResponse serveCustomMetrics(const MetricsRequest& r, const PodIndex& pods, LoadModel& model) {
  const auto& parts = r.parts;
  if (parts.size() != 8)
    return error(404, "NotFound", "expected /namespaces/NS/RESOURCE/NAME/METRIC");
  const std::string& ns = r.ns;
  const std::string resource = parts[5];
  const std::string name = parts[6];
  const std::string metric = parts[7];
  json items = json::array();
  if (resource == "pods" && name == "*") {
    const auto selected = pods.select(ns, r.selector);
    for (const auto& [pod, value] : model.podMetric(selected, ns, metric)) {
      items.push_back(metricValue(
          r.version,
          {{"kind", "Pod"}, {"namespace", ns}, {"name", pod->name}, {"apiVersion", "/v1"}}, metric,
          value, r.timestamp));
    }
    if (items.empty())
      return error(404, "NotFound",
                   fmt::format("the server could not find the metric {} for pods", metric));
  } else {
    auto value = model.objectMetric(ns, resource, name, metric);
    if (!value) {
      return error(
          404, "NotFound",
          fmt::format("the server could not find the metric {} for {} {}", metric, resource, name));
    }
    items.push_back(metricValue(
        r.version, {{"kind", resource}, {"namespace", ns}, {"name", name}, {"apiVersion", ""}},
        metric, *value, r.timestamp));
  }
  return {200,
          {{"kind", "MetricValueList"},
           {"apiVersion", r.groupVersion},
           {"metadata", json::object()},
           {"items", items}}};
}

// external.metrics.k8s.io: a metric's series that match the selector.
ApiResponse serveExternalMetrics(const MetricsRequest& r, LoadModel& model) {
  if (r.parts.size() != 6) return error(404, "NotFound", "expected /namespaces/NS/METRIC");
  json items = json::array();
  for (const auto& e : model.externalMetric(r.ns, r.parts[5], r.selector)) {
    items.push_back({{"metricName", e.metric},
                     {"metricLabels", e.labels},
                     {"timestamp", r.timestamp},
                     {"window", kWindowSeconds},
                     {"value", quantity(e.valueMilli)}});
  }
  return {200,
          {{"kind", "ExternalMetricValueList"},
           {"apiVersion", r.groupVersion},
           {"metadata", json::object()},
           {"items", items}}};
}

}  // namespace

ApiResponse serveMetricsApi(const std::string& path,
                            const std::map<std::string, std::string>& query, const PodIndex& pods,
                            LoadModel& model, Time now) {
  const auto parts = split(path);
  auto selector = api::Selector::parse(queryValue(query, "labelSelector"));
  if (!selector.ok()) return error(400, "BadRequest", selector.error().message);
  if (parts.size() < 3 || parts[0] != "apis")
    return error(404, "NotFound", "the server could not find the requested resource");
  const std::string& group = parts[1];
  const std::string& version = parts[2];
  const std::string groupVersion = group + "/" + version;
  bool served = false;
  for (const auto& v : servedVersions())
    served = served || (v.group == group && v.version == version);
  if (!served) return error(404, "NotFound", fmt::format("{} is not served here", groupVersion));

  if (parts.size() == 3) {
    if (group == "metrics.k8s.io")
      return {200, resourceList(groupVersion, {{"nodes", "NodeMetrics"}, {"pods", "PodMetrics"}})};
    if (group == "custom.metrics.k8s.io")
      return {200, resourceList(groupVersion, {{"pods/*", "MetricValueList"}})};
    return {200, resourceList(groupVersion, {{"*", "ExternalMetricValueList"}})};
  }
  if (parts.size() < 5 || parts[3] != "namespaces")
    return error(404, "NotFound", "namespaced requests only");
  const MetricsRequest request{
      parts, version, groupVersion, parts[4], std::move(*selector), formatRFC3339(now)};
  if (group == "metrics.k8s.io") return serveResourceMetrics(request, pods, model);
  if (group == "custom.metrics.k8s.io") return serveCustomMetrics(request, pods, model);
  return serveExternalMetrics(request, model);
}

}  // namespace hpa::sim
