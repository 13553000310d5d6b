#include "sim/observed_pod.h"

#include "api/json_fields.h"

namespace hpa::sim {

SimPod ObservedPod::toSimPod() const {
  SimPod p;
  p.namespace_ = namespace_;
  p.name = name;
  p.labels = labels;
  p.ready = ready;
  for (const auto& c : containers) p.containers.push_back(c.name);
  return p;
}

Result<ObservedPod> decodeObservedPod(const nlohmann::json& j) {
  auto f = api::JsonFields::root(j);
  ObservedPod p;
  auto meta = f.object("metadata");
  p.namespace_ = meta.string("namespace").value_or("");
  p.name = meta.string("name").value_or("");
  p.resourceVersion = meta.string("resourceVersion").value_or("");
  if (auto labels = meta.stringMap("labels")) p.labels = api::Labels::fromMap(*labels);
  p.creationTimestamp = meta.time("creationTimestamp");
  p.deletionTimestamp = meta.time("deletionTimestamp");
  auto spec = f.object("spec");
  p.nodeName = spec.string("nodeName").value_or("");
  spec.forEach("containers", [&](const api::JsonFields& c, size_t) {
    p.containers.push_back({c.string("name").value_or(""), c.string("image").value_or("")});
  });
  auto status = f.object("status");
  p.phase = status.string("phase").value_or("");
  p.startTime = status.time("startTime");
  status.forEach("conditions", [&](const api::JsonFields& c, size_t) {
    if (c.string("type").value_or("") == "Ready")
      p.ready = c.string("status").value_or("") == "True";
  });
  if (f.failed()) return f.error();
  if (p.name.empty()) return Error::of("pod without metadata.name");
  return p;
}

}  // namespace hpa::sim
