#include <nlohmann/json.hpp>

#include "api/codec_internal.h"
#include "api/label_selector.h"
#include "api/workload.h"

namespace hpa::api {

Result<Workload> decodeWorkload(const nlohmann::json& object, const std::string& kind) {
  auto f = JsonFields::root(object);
  Workload w;
  w.kind = kind;
  auto meta = f.object("metadata");
  w.name = meta.string("name").value_or("");
  w.namespace_ = meta.string("namespace").value_or("");
  w.uid = meta.string("uid").value_or("");
  w.resourceVersion = meta.string("resourceVersion").value_or("");
  w.creationTimestamp = meta.time("creationTimestamp");
  w.controllerRef = detail::readControllerRef(meta);
  auto spec = f.object("spec");
  w.specReplicas = spec.int32("replicas").value_or(1);
  w.statusReplicas = f.object("status").int32("replicas").value_or(0);
  if (f.failed()) return f.error();
  if (spec.has("selector")) {
    LabelSelector ls;
    if (kind == kReplicationController) {
      // A ReplicationController's selector is a plain label map.
      ls.matchLabels = spec.stringMap("selector").value_or(std::map<std::string, std::string>{});
    } else {
      ls = detail::readLabelSelector(spec.object("selector"));
    }
    if (f.failed()) return f.error();
    auto parsed = Selector::fromLabelSelector(&ls);
    if (!parsed.ok()) return parsed.error().wrap("spec.selector");
    w.selector = parsed->toString();
  }
  return w;
}

Scale scaleOf(const Workload& w) {
  Scale s;
  s.metadata.name = w.name;
  s.metadata.namespace_ = w.namespace_;
  s.metadata.uid = w.uid;
  s.metadata.resourceVersion = w.resourceVersion;
  s.metadata.creationTimestamp = w.creationTimestamp;
  s.specReplicas = w.specReplicas;
  s.statusReplicas = w.statusReplicas;
  s.selector = w.selector;
  return s;
}

const std::vector<BuiltinWorkload>& builtinWorkloads() {
  static const std::vector<BuiltinWorkload> kinds = {
      {"apps", "v1", "deployments", kDeployment},
      {"apps", "v1", "statefulsets", kStatefulSet},
      {"apps", "v1", "replicasets", kReplicaSet},
      {"", "v1", "replicationcontrollers", kReplicationController},
  };
  return kinds;
}

const BuiltinWorkload* builtinWorkloadByKind(const std::string& group, const std::string& kind) {
  for (const auto& w : builtinWorkloads()) {
    if (group == w.group && kind == w.kind) return &w;
  }
  return nullptr;
}

const BuiltinWorkload* builtinWorkloadByResource(const std::string& group,
                                                 const std::string& resource) {
  for (const auto& w : builtinWorkloads()) {
    if (group == w.group && resource == w.resource) return &w;
  }
  return nullptr;
}

}  // namespace hpa::api
