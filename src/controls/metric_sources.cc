#include "controls/metric_sources.h"

#include <fmt/format.h>

#include <string>

#include "api/codec.h"
#include "common/base64.h"
#include "common/quote.h"
#include "common/yaml_json.h"

namespace hpa::controls {
namespace {

struct Entry {
  std::string type;
  std::string name;
  std::optional<api::LabelSelector> selector;
  api::MetricRoute route;
};

// A DNS subdomain, as an APIService's group is.
bool validGroup(const std::string& group) {
  if (group.empty() || group.size() > 253) return false;
  char previous = '.';
  for (char c : group) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && c != '-' && c != '.') return false;
    if (c == '.' && (previous == '.' || previous == '-')) return false;
    if (c == '-' && previous == '.') return false;
    previous = c;
  }
  return previous != '.' && previous != '-';
}

Result<std::string> stringField(const nlohmann::json& value, const char* key) {
  if (!value.is_string()) return Error::format("{} must be a string", key);
  return value.get<std::string>();
}

Result<api::ServiceReference> readService(const nlohmann::json& item) {
  if (!item.is_object()) return Error::of("service must be an object with namespace and name");
  api::ServiceReference service;
  for (const auto& [key, value] : item.items()) {
    if (key == "namespace" || key == "name") {
      auto text = stringField(value, key.c_str());
      if (!text.ok()) return text.error().wrap("service");
      (key == "name" ? service.name : service.namespace_) = *text;
    } else if (key == "port") {
      if (!value.is_number_integer() || value.get<std::int64_t>() < 1 ||
          value.get<std::int64_t>() > 65535)
        return Error::of("service: port must be a number from 1 to 65535");
      service.port = static_cast<std::int32_t>(value.get<std::int64_t>());
    } else {
      return Error::format("service: unknown field {}", quote(key));
    }
  }
  if (service.namespace_.empty() || service.name.empty())
    return Error::of("service: namespace and name are required");
  return service;
}

Status readCaBundle(const nlohmann::json& value, api::MetricRoute& route) {
  auto text = stringField(value, "caBundle");
  if (!text.ok()) return text.error();
  auto pem = base64Decode(*text);
  if (!pem.ok()) return pem.error().wrap("caBundle is not base64");
  if (pem->find("-----BEGIN CERTIFICATE-----") == std::string::npos)
    return Error::of("caBundle holds no PEM certificate");
  route.caBundle = *pem;
  return Status();
}

Status readSourceFields(const nlohmann::json& item, api::MetricRoute& route) {
  for (const auto& [key, value] : item.items()) {
    if (key == "apiGroup") {
      auto group = stringField(value, "apiGroup");
      if (!group.ok()) return group.error();
      if (!validGroup(*group)) return Error::format("apiGroup {} is not a DNS name", quote(*group));
      route.apiGroup = *group;
    } else if (key == "service") {
      auto service = readService(value);
      if (!service.ok()) return service.error();
      route.service = *service;
    } else if (key == "caBundle") {
      if (auto read = readCaBundle(value, route); !read.ok()) return read;
    } else if (key == "insecureSkipTLSVerify") {
      if (!value.is_boolean()) return Error::of("insecureSkipTLSVerify must be true or false");
      route.insecureSkipTLSVerify = value.get<bool>();
    } else {
      return Error::format("unknown field {}", quote(key));
    }
  }
  return Status();
}

Result<api::MetricRoute> readSource(const nlohmann::json& item) {
  if (!item.is_object()) return Error::of("source must be an object with apiGroup or service");
  api::MetricRoute route;
  if (auto read = readSourceFields(item, route); !read.ok()) return read.error();
  if (route.apiGroup.empty() == !route.service)
    return Error::of("exactly one of apiGroup and service is required");
  const bool tls = !route.caBundle.empty() || route.insecureSkipTLSVerify;
  if (!route.service && tls)
    return Error::of("caBundle and insecureSkipTLSVerify go with service only");
  if (!route.caBundle.empty() && route.insecureSkipTLSVerify)
    return Error::of("caBundle and insecureSkipTLSVerify exclude each other");
  return route;
}

Status readEntryFields(const nlohmann::json& item, Entry& entry, bool& hasSource) {
  for (const auto& [key, value] : item.items()) {
    if (key == "type" || key == "name") {
      auto text = stringField(value, key.c_str());
      if (!text.ok()) return text.error();
      (key == "type" ? entry.type : entry.name) = *text;
    } else if (key == "selector") {
      auto selector = api::decodeLabelSelector(value);
      if (!selector.ok()) return selector.error().wrap("selector");
      entry.selector = *selector;
    } else if (key == "source") {
      auto route = readSource(value);
      if (!route.ok()) return route.error().wrap("source");
      entry.route = *route;
      hasSource = true;
    } else {
      return Error::format("unknown field {}", quote(key));
    }
  }
  return Status();
}

Result<Entry> readEntry(const nlohmann::json& item) {
  if (!item.is_object()) return Error::of("must be an object with type, name and source");
  Entry entry;
  bool hasSource = false;
  if (auto read = readEntryFields(item, entry, hasSource); !read.ok()) return read.error();
  if (entry.type == api::kResourceMetric || entry.type == api::kContainerResourceMetric)
    return Error::format("type {}: resource metrics are never routed", entry.type);
  if (entry.type != api::kObjectMetric && entry.type != api::kPodsMetric &&
      entry.type != api::kExternalMetric)
    return Error::of("type must be Object, Pods or External");
  if (entry.name.empty()) return Error::of("name is required");
  if (!hasSource) return Error::of("source is required");
  return entry;
}

bool matches(const Entry& entry, const api::MetricSpec& metric) {
  const auto* id = api::identifierOf(metric);
  return id && api::typeOf(metric) == entry.type && id->name == entry.name &&
         (!entry.selector || entry.selector == id->selector);
}

}  // namespace

Result<std::vector<std::optional<api::MetricRoute>>> parseMetricSources(
    std::string_view text, const std::vector<api::MetricSpec>& metrics) {
  auto documents = yamlDocumentsToJson(text);
  if (!documents.ok()) return documents.error();
  if (documents->size() != 1 || !(*documents)[0].is_array() || (*documents)[0].empty())
    return Error::of("must be a list of metrics, each with type, name and source");
  std::vector<std::optional<api::MetricRoute>> routes(metrics.size());
  const auto& items = (*documents)[0];
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto entry = readEntry(items[i]);
    if (!entry.ok()) return entry.error().wrap(fmt::format("entry {}", i + 1));
    bool matched = false;
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      if (!matches(*entry, metrics[m])) continue;
      if (routes[m]) {
        return Error::format("entry {}: {} metric {} is routed twice", i + 1, entry->type,
                             quote(entry->name));
      }
      routes[m] = entry->route;
      matched = true;
    }
    if (!matched) {
      return Error::format("entry {}: no {} metric {}{} in spec.metrics", i + 1, entry->type,
                           quote(entry->name), entry->selector ? " with that selector" : "");
    }
  }
  return routes;
}

std::string formatMetricSources(const std::vector<std::optional<api::MetricRoute>>& routes,
                                const std::vector<api::MetricSpec>& metrics) {
  std::string out;
  for (std::size_t i = 0; i < routes.size() && i < metrics.size(); ++i) {
    if (!routes[i]) continue;
    const auto* id = api::identifierOf(metrics[i]);
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {} from {}", api::typeOf(metrics[i]), id ? id->name : "",
                       api::describeRoute(*routes[i]));
  }
  return out;
}

}  // namespace hpa::controls
