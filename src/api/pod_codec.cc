#include "api/codec.h"
#include "api/codec_internal.h"

namespace hpa::api {
namespace {

using nlohmann::json;

// Requests are kept as milli-values: that is all the calculator ever uses of them.
ResourceAmounts readResourceList(const JsonFields& parent, std::string_view key) {
  ResourceAmounts out;
  auto list = parent.object(key);
  if (!list.present()) return out;
  for (auto it = list.node()->begin(); it != list.node()->end(); ++it) {
    auto q = list.quantity(it.key());
    if (q) out.push_back({it.key(), q->milliValue()});
  }
  return out;
}

json encodeResourceList(const ResourceAmounts& list) {
  json j = json::object();
  for (const auto& r : list) j[r.name] = Quantity::fromMilli(r.milli).toString();
  return j;
}

ContainerRequests readContainer(const JsonFields& c) {
  ContainerRequests out;
  out.name = c.string("name").value_or("");
  out.requests = readResourceList(c.object("resources"), "requests");
  out.restartPolicyAlways = c.string("restartPolicy").value_or("") == "Always";
  return out;
}

json encodeContainers(const std::vector<ContainerRequests>& list) {
  json arr = json::array();
  for (const auto& c : list) {
    json cj{{"name", c.name}};
    if (!c.requests.empty()) cj["resources"] = json{{"requests", encodeResourceList(c.requests)}};
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
  p.deletionTimestamp = meta.time("deletionTimestamp");

  auto spec = f.object("spec");
  spec.forEach("containers", [&](const JsonFields& c, size_t) { p.containers.push_back(readContainer(c)); });
  spec.forEach("initContainers", [&](const JsonFields& c, size_t) { p.initContainers.push_back(readContainer(c)); });
  auto podResources = spec.object("resources");
  if (podResources.has("requests")) p.podRequests = readResourceList(podResources, "requests");
  p.overhead = readResourceList(spec, "overhead");

  auto status = f.object("status");
  p.phase = status.string("phase").value_or("");
  p.startTime = status.time("startTime");
  status.forEach("conditions", [&](const JsonFields& c, size_t) {
    if (c.string("type").value_or("") != "Ready") return;
    p.ready = PodReadyCondition{c.string("status").value_or(""), c.time("lastTransitionTime")};
  });
  p.containers.shrink_to_fit();
  p.initContainers.shrink_to_fit();
  return detail::finish(f, std::move(p));
}

nlohmann::json encodePod(const Pod& p) {
  json meta{{"name", p.name}};
  if (!p.namespace_.empty()) meta["namespace"] = p.namespace_;
  if (!p.resourceVersion.empty()) meta["resourceVersion"] = p.resourceVersion;
  if (!p.labels.empty()) meta["labels"] = p.labels.toMap();
  if (p.deletionTimestamp) meta["deletionTimestamp"] = formatRFC3339Nano(*p.deletionTimestamp);

  json spec{{"containers", encodeContainers(p.containers)}};
  if (!p.initContainers.empty()) spec["initContainers"] = encodeContainers(p.initContainers);
  if (p.podRequests) spec["resources"] = json{{"requests", encodeResourceList(*p.podRequests)}};
  if (!p.overhead.empty()) spec["overhead"] = encodeResourceList(p.overhead);

  json status = json::object();
  if (!p.phase.empty()) status["phase"] = p.phase;
  if (p.startTime) status["startTime"] = formatRFC3339Nano(*p.startTime);
  if (p.ready) {
    json c{{"type", "Ready"}, {"status", p.ready->status}};
    if (p.ready->lastTransitionTime) c["lastTransitionTime"] = formatRFC3339Nano(*p.ready->lastTransitionTime);
    status["conditions"] = json::array({c});
  }
  return json{{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", spec}, {"status", status}};
}

}  // namespace hpa::api
