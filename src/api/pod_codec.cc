#include "api/codec.h"
#include "api/codec_internal.h"

namespace hpa::api {
namespace {

using nlohmann::json;

using Values = std::vector<std::pair<std::string, std::int64_t>>;

// Requests and limits are kept as milli-values: that is all the calculator ever uses of them.
Values readValues(const JsonFields& parent, std::string_view key) {
  // Most containers have no limits: no child view (and its path) for an absent key.
  if (!parent.has(key)) return {};
  auto list = parent.object(key);
  if (!list.present()) return {};
  Values values;
  values.reserve(list.node()->size());
  for (auto it = list.node()->begin(); it != list.node()->end(); ++it) {
    auto q = list.quantity(it.key());
    if (q) values.emplace_back(it.key(), q->milliValue());
  }
  return values;
}

ResourceList readResourceList(const JsonFields& parent, std::string_view key) {
  return ResourceList::fromValues(readValues(parent, key));
}

// A `resources` object's requests and limits, in one list.
ResourceList readRequestsAndLimits(const JsonFields& resources) {
  return ResourceList::fromValues(readValues(resources, "requests"),
                                  readValues(resources, "limits"));
}

json encodeResourceList(const ResourceList& list) {
  json j = json::object();
  for (const auto& e : list.entries()) {
    if (e.milli) j[std::string(e.name)] = Quantity::fromMilli(*e.milli).toString();
  }
  return j;
}

// The `resources` object of a list holding requests and limits: each key only when it has
// values (a pod-level resources object with neither keeps an empty requests, as decoded).
json encodeRequestsAndLimits(const ResourceList& list) {
  json out = json::object();
  json requests = encodeResourceList(list);
  json limits = json::object();
  for (const auto& e : list.entries()) {
    if (e.limit) limits[std::string(e.name)] = Quantity::fromMilli(*e.limit).toString();
  }
  if (!requests.empty() || limits.empty()) out["requests"] = std::move(requests);
  if (!limits.empty()) out["limits"] = std::move(limits);
  return out;
}

// status.containerStatuses[] / initContainerStatuses[]: the requests the kubelet reports as
// actuated (in-place resize), recorded on the spec container of the same name. Values equal
// to spec are not kept (ResourceList::setActuated).
void readActuatedRequests(const JsonFields& status, std::string_view key,
                          std::vector<ContainerRequests>& containers) {
  // Kubelets before in-place resize report no resources: skip the walk (and its paths) then.
  if (const auto* raw = status.node(); raw && raw->is_object()) {
    auto list = raw->find(key);
    if (list == raw->end() || !list->is_array())
      return;  // absent; a wrong type is not ours to judge
    bool anyResources = false;
    for (const auto& cs : *list)
      anyResources = anyResources || (cs.is_object() && cs.contains("resources"));
    if (!anyResources) return;
  }
  status.forEach(key, [&](const JsonFields& cs, size_t) {
    const std::string name = cs.string("name").value_or("");
    auto resources = cs.object("resources");
    if (!resources.has("requests")) return;
    auto actuated = readResourceList(resources, "requests");
    for (auto& c : containers) {
      if (c.name != name) continue;
      for (const auto& e : actuated.entries()) c.requests.setActuated(e.name, *e.milli);
    }
  });
}

json encodeActuatedRequests(const std::vector<ContainerRequests>& containers) {
  json statuses = json::array();
  for (const auto& c : containers) {
    if (!c.requests.hasActuated()) continue;
    json requests = json::object();
    for (const auto& e : c.requests.entries()) {
      if (e.actuated) requests[std::string(e.name)] = Quantity::fromMilli(*e.actuated).toString();
    }
    statuses.push_back(
        json{{"name", c.name}, {"resources", json{{"requests", std::move(requests)}}}});
  }
  return statuses;
}

ContainerRequests readContainer(const JsonFields& c) {
  ContainerRequests out;
  out.name = c.string("name").value_or("");
  out.requests = readRequestsAndLimits(c.object("resources"));
  out.restartPolicyAlways = c.string("restartPolicy").value_or("") == "Always";
  return out;
}

json encodeContainers(const std::vector<ContainerRequests>& list) {
  json arr = json::array();
  for (const auto& c : list) {
    json cj{{"name", c.name}};
    if (!c.requests.empty()) cj["resources"] = encodeRequestsAndLimits(c.requests);
    if (c.restartPolicyAlways) cj["restartPolicy"] = "Always";
    arr.push_back(std::move(cj));
  }
  return arr;
}

}  // namespace

Result<Pod> decodePod(const nlohmann::json& j) {
  auto f = JsonFields::root(j);
  Pod p;
  auto meta = f.object("metadata");
  p.name = meta.string("name").value_or("");
  p.namespace_ = meta.string("namespace").value_or("");
  p.resourceVersion = meta.string("resourceVersion").value_or("");
  if (auto labels = meta.stringMap("labels")) p.labels = Labels::fromMap(*labels);
  p.creationTimestamp = meta.time("creationTimestamp");
  p.deletionTimestamp = meta.time("deletionTimestamp");
  if (auto owner = detail::readControllerRef(meta))
    p.controller = PodOwner{owner->kind, owner->name};

  auto spec = f.object("spec");
  spec.forEach("containers",
               [&](const JsonFields& c, size_t) { p.containers.push_back(readContainer(c)); });
  spec.forEach("initContainers",
               [&](const JsonFields& c, size_t) { p.initContainers.push_back(readContainer(c)); });
  auto podResources = spec.object("resources");
  if (podResources.has("requests") || podResources.has("limits"))
    p.podRequests = readRequestsAndLimits(podResources);
  p.overhead = readResourceList(spec, "overhead");

  auto status = f.object("status");
  p.phase = status.string("phase").value_or("");
  p.startTime = status.time("startTime");
  status.forEach("conditions", [&](const JsonFields& c, size_t) {
    if (c.string("type").value_or("") != "Ready") return;
    p.ready = PodReadyCondition{c.string("status").value_or(""), c.time("lastTransitionTime")};
  });
  readActuatedRequests(status, "containerStatuses", p.containers);
  readActuatedRequests(status, "initContainerStatuses", p.initContainers);
  p.containers.shrink_to_fit();
  p.initContainers.shrink_to_fit();
  return detail::finish(f, std::move(p));
}

nlohmann::json encodePod(const Pod& p) {
  json meta{{"name", p.name}};
  if (!p.namespace_.empty()) meta["namespace"] = p.namespace_;
  if (!p.resourceVersion.empty()) meta["resourceVersion"] = p.resourceVersion;
  if (!p.labels.empty()) meta["labels"] = p.labels.toMap();
  if (p.creationTimestamp) meta["creationTimestamp"] = formatRFC3339(*p.creationTimestamp);
  if (p.deletionTimestamp) meta["deletionTimestamp"] = formatRFC3339Nano(*p.deletionTimestamp);
  if (p.controller) {
    meta["ownerReferences"] = json::array(
        {{{"kind", p.controller->kind}, {"name", p.controller->name}, {"controller", true}}});
  }

  json spec{{"containers", encodeContainers(p.containers)}};
  if (!p.initContainers.empty()) spec["initContainers"] = encodeContainers(p.initContainers);
  if (p.podRequests) spec["resources"] = encodeRequestsAndLimits(*p.podRequests);
  if (!p.overhead.empty()) spec["overhead"] = encodeResourceList(p.overhead);

  json status = json::object();
  if (!p.phase.empty()) status["phase"] = p.phase.text();
  if (p.startTime) status["startTime"] = formatRFC3339Nano(*p.startTime);
  if (p.ready) {
    json c{{"type", "Ready"}, {"status", p.ready->status.text()}};
    if (p.ready->lastTransitionTime)
      c["lastTransitionTime"] = formatRFC3339Nano(*p.ready->lastTransitionTime);
    status["conditions"] = json::array({c});
  }
  if (auto statuses = encodeActuatedRequests(p.containers); !statuses.empty()) {
    status["containerStatuses"] = std::move(statuses);
  }
  if (auto statuses = encodeActuatedRequests(p.initContainers); !statuses.empty()) {
    status["initContainerStatuses"] = std::move(statuses);
  }
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", meta},
              {"spec", spec},
              {"status", status}};
}

}  // namespace hpa::api
