#include "api/codec.h"
#include "api/codec_internal.h"

namespace hpa::api {
namespace detail {

ObjectMeta readObjectMeta(const JsonFields& f) {
  ObjectMeta m;
  m.name = f.string("name").value_or("");
  m.namespace_ = f.string("namespace").value_or("");
  m.uid = f.string("uid").value_or("");
  m.resourceVersion = f.string("resourceVersion").value_or("");
  m.generation = f.int64("generation").value_or(0);
  m.labels = f.stringMap("labels").value_or(std::map<std::string, std::string>{});
  m.annotations = f.stringMap("annotations").value_or(std::map<std::string, std::string>{});
  m.creationTimestamp = f.time("creationTimestamp");
  m.deletionTimestamp = f.time("deletionTimestamp");
  return m;
}

namespace {

bool writesStatus(const nlohmann::json& entry) {
  const auto subresource = entry.find("subresource");
  if (subresource != entry.end() && subresource->is_string() && *subresource == "status")
    return true;
  const auto fields = entry.find("fieldsV1");
  return fields != entry.end() && fields->is_object() && fields->contains("f:status");
}

}  // namespace

std::optional<StatusWrite> readLastForeignStatusWrite(const JsonFields& metadata) {
  const nlohmann::json* node = metadata.node();
  if (!node || !node->is_object()) return std::nullopt;
  const auto entries = node->find("managedFields");
  if (entries == node->end() || !entries->is_array()) return std::nullopt;
  std::optional<StatusWrite> newest;
  for (const auto& entry : *entries) {
    if (!entry.is_object() || !writesStatus(entry)) continue;
    const auto manager = entry.find("manager");
    const auto time = entry.find("time");
    if (manager == entry.end() || !manager->is_string() || *manager == kFieldManager) continue;
    if (time == entry.end() || !time->is_string()) continue;
    auto written = parseRFC3339(time->get<std::string>());
    if (!written.ok() || (newest && newest->time >= *written)) continue;
    newest = StatusWrite{manager->get<std::string>(), *written};
  }
  return newest;
}

std::optional<OwnerReference> readControllerRef(const JsonFields& metadata) {
  std::optional<OwnerReference> out;
  metadata.forEach("ownerReferences", [&](const JsonFields& r, size_t) {
    if (out || !r.boolean("controller").value_or(false)) return;
    out = OwnerReference{r.string("apiVersion").value_or(""), r.string("kind").value_or(""),
                         r.string("name").value_or(""), r.string("uid").value_or(""), true};
  });
  return out;
}

LabelSelector readLabelSelector(const JsonFields& f) {
  LabelSelector s;
  s.matchLabels = f.stringMap("matchLabels").value_or(std::map<std::string, std::string>{});
  f.forEach("matchExpressions", [&](const JsonFields& e, size_t) {
    LabelSelectorRequirement r;
    r.key = e.string("key").value_or("");
    r.op = e.string("operator").value_or("");
    r.values = e.stringList("values").value_or(std::vector<std::string>{});
    s.matchExpressions.push_back(std::move(r));
  });
  return s;
}

std::optional<LabelSelector> readOptionalLabelSelector(const JsonFields& parent,
                                                       std::string_view key) {
  if (!parent.has(key)) return std::nullopt;
  return readLabelSelector(parent.object(key));
}

}  // namespace detail

nlohmann::json encodeObjectMeta(const ObjectMeta& m) {
  nlohmann::json j = nlohmann::json::object();
  if (!m.name.empty()) j["name"] = m.name;
  if (!m.namespace_.empty()) j["namespace"] = m.namespace_;
  if (!m.uid.empty()) j["uid"] = m.uid;
  if (!m.resourceVersion.empty()) j["resourceVersion"] = m.resourceVersion;
  if (m.generation != 0) j["generation"] = m.generation;
  if (!m.labels.empty()) j["labels"] = m.labels;
  if (!m.annotations.empty()) j["annotations"] = m.annotations;
  if (m.creationTimestamp) j["creationTimestamp"] = formatRFC3339(*m.creationTimestamp);
  if (m.deletionTimestamp) j["deletionTimestamp"] = formatRFC3339(*m.deletionTimestamp);
  return j;
}

Result<LabelSelector> decodeLabelSelector(const nlohmann::json& j) {
  auto f = JsonFields::root(j);
  return detail::finish(f, detail::readLabelSelector(f));
}

nlohmann::json encodeLabelSelector(const LabelSelector& s) {
  nlohmann::json j = nlohmann::json::object();
  if (!s.matchLabels.empty()) j["matchLabels"] = s.matchLabels;
  if (!s.matchExpressions.empty()) {
    nlohmann::json exprs = nlohmann::json::array();
    for (const auto& r : s.matchExpressions) {
      nlohmann::json e{{"key", r.key}, {"operator", r.op}};
      if (!r.values.empty()) e["values"] = r.values;
      exprs.push_back(std::move(e));
    }
    j["matchExpressions"] = std::move(exprs);
  }
  return j;
}

}  // namespace hpa::api
