#include "explain/snapshot_writer.h"

#include <cctype>
#include <set>
#include <string>

#include "api/codec.h"
#include "api/label_selector.h"
#include "common/json_value.h"
#include "common/yaml_json.h"

namespace hpa::explain {
namespace {

using nlohmann::json;

// The objects of one kind, each once, in the order first read.
class Group {
 public:
  void add(const std::string& identity, json object) {
    if (seen_.insert(identity).second) items_.push_back(std::move(object));
  }
  const std::vector<json>& items() const { return items_; }

 private:
  std::set<std::string> seen_;
  std::vector<json> items_;
};

std::string metaKey(const json& object) {
  const json meta = object.value("metadata", json::object());
  return meta.value("namespace", "") + "/" + meta.value("name", "");
}

// Server-side bookkeeping nobody reads back; it would only make the file long.
json trimmed(json object) {
  if (object.contains("metadata") && object["metadata"].is_object())
    object["metadata"].erase("managedFields");
  return object;
}

// The URL-decoded value of query parameter `name` in a request path ("" when absent).
std::string queryParam(const std::string& pathAndQuery, const std::string& name) {
  auto q = pathAndQuery.find('?');
  while (q != std::string::npos) {
    const auto start = q + 1;
    const auto end = pathAndQuery.find('&', start);
    const std::string pair =
        pathAndQuery.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (pair.rfind(name + "=", 0) == 0) {
      std::string out;
      for (size_t i = name.size() + 1; i < pair.size(); ++i) {
        if (pair[i] == '%' && i + 2 < pair.size() &&
            std::isxdigit(static_cast<unsigned char>(pair[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(pair[i + 2]))) {
          out += static_cast<char>(std::stoi(pair.substr(i + 1, 2), nullptr, 16));
          i += 2;
        } else {
          out += pair[i] == '+' ? ' ' : pair[i];
        }
      }
      return out;
    }
    q = end;
  }
  return "";
}

// A custom metric value names its series in its metric selector. Adapters that leave it null
// answered the request's metricLabelSelector: record that selector in the value, so the same
// request selects it offline.
void nameTheSeries(json& item, const std::string& metricLabelSelector) {
  if (metricLabelSelector.empty()) return;
  const bool v1beta1 = item.contains("metricName");
  json& selector = v1beta1 ? item["selector"] : item["metric"]["selector"];
  if (!selector.is_null()) return;
  auto parsed = api::Selector::parse(metricLabelSelector);
  if (!parsed.ok()) return;
  if (auto spec = parsed->toLabelSelector()) selector = api::encodeLabelSelector(*spec);
}

struct Groups {
  Group hpas, scales, pods, podMetrics, customValues, externalValues;

  void add(const std::string& path, const json& body) {
    if (!body.is_object()) return;
    const std::string kind = body.value("kind", "");
    const std::string apiVersion = body.value("apiVersion", "");
    if (kind.ends_with("List") && body.contains("items") && body["items"].is_array()) {
      const std::string itemKind = kind.substr(0, kind.size() - 4);
      const std::string metricLabelSelector = queryParam(path, "metricLabelSelector");
      for (json item : body["items"]) {
        if (!item.is_object()) continue;
        if (!item.contains("kind")) item["kind"] = itemKind;
        if (!item.contains("apiVersion")) item["apiVersion"] = apiVersion;
        if (itemKind == "MetricValue") nameTheSeries(item, metricLabelSelector);
        addObject(path, item);
      }
      return;
    }
    addObject(path, body);
  }

  void addObject(const std::string& path, const json& object) {
    const std::string kind = object.value("kind", "");
    if (kind == "HorizontalPodAutoscaler") {
      hpas.add(metaKey(object), trimmed(object));
    } else if (kind == "Scale") {
      // Scales of two kinds may share a name: the path tells them apart.
      scales.add(path, trimmed(object));
    } else if (kind == "Pod") {
      pods.add(metaKey(object), trimmed(object));
    } else if (kind == "PodMetrics") {
      podMetrics.add(metaKey(object), trimmed(object));
    } else if (kind == "MetricValue") {
      // One series: the object it describes, the metric and its labels.
      const json metric = object.value("metric", json::object());
      customValues.add(object.value("apiVersion", "") +
                           object.value("describedObject", json::object()).dump() +
                           object.value("metricName", metric.value("name", "")) +
                           object.value("selector", metric.value("selector", json())).dump(),
                       object);
    } else if (kind == "ExternalMetricValue") {
      externalValues.add(
          object.value("metricName", "") + object.value("metricLabels", json::object()).dump(),
          object);
    }
  }
};

json listOf(const std::vector<json>& items) {
  return json{
      {"apiVersion", "v1"}, {"kind", "List"}, {"metadata", json::object()}, {"items", items}};
}

}  // namespace

std::string writeSnapshot(const std::vector<kube::RecordedResponse>& responses,
                          const std::vector<api::AutoscalerHistory>& histories,
                          const std::vector<std::string>& comments) {
  Groups groups;
  for (const auto& r : responses) {
    auto body = parseUntrustedJson(r.body);
    if (!body.is_discarded()) groups.add(r.pathAndQuery, body);
  }
  std::vector<json> documents;
  for (const auto& h : groups.hpas.items()) documents.push_back(h);
  for (const auto& s : groups.scales.items()) documents.push_back(s);
  for (const auto& h : histories) documents.push_back(api::encodeAutoscalerHistory(h));
  for (const Group* g :
       {&groups.pods, &groups.podMetrics, &groups.customValues, &groups.externalValues}) {
    if (!g->items().empty()) documents.push_back(listOf(g->items()));
  }

  std::string out;
  for (const auto& c : comments) out += "# " + c + "\n";
  for (size_t i = 0; i < documents.size(); ++i) {
    if (i > 0 || !out.empty()) out += "---\n";
    out += jsonToYaml(documents[i]);
  }
  return out;
}

}  // namespace hpa::explain
