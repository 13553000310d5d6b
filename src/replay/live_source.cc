#include "replay/live_source.h"
#include "common/json_value.h"

#include <fmt/format.h>

#include "kube/discovery.h"
#include "common/quote.h"

namespace hpa::replay {
namespace {

using nlohmann::json;

bool isWorkloadKind(const std::string& group, const std::string& kind) {
  return (group == "apps" && (kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet")) ||
         (group.empty() && kind == "ReplicationController");
}

std::string groupOf(const std::string& apiVersion) {
  auto slash = apiVersion.find('/');
  return slash == std::string::npos ? "" : apiVersion.substr(0, slash);
}

std::string resourcePath(const kube::GroupVersionResource& r, const std::string& ns, const std::string& name) {
  const std::string prefix = r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
  return fmt::format("{}/namespaces/{}/{}/{}", prefix, ns, r.resource, name);
}

// Objects as a GET returns them, with apiVersion and kind set (a server may leave them out).
explain::SnapshotSource source(const std::string& name, json object, const std::string& apiVersion,
                               const std::string& kind) {
  if (!object.contains("apiVersion")) object["apiVersion"] = apiVersion;
  if (!object.contains("kind")) object["kind"] = kind;
  return {name, object.dump()};
}

}  // namespace

Result<std::vector<explain::SnapshotSource>> fetchLive(kube::RestClient& client, const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == key.size() || key.find('/', slash + 1) != std::string::npos) {
    return Error::format("--hpa {}: expected namespace/name", quote(key));
  }
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  const std::string server = client.config().server;

  kube::Discovery discovery(client);
  auto version = discovery.pickVersion("autoscaling", {"v2", "v2beta2"});
  if (!version.ok()) return Error::format("{}: cannot find the HPA API: {}", server, version.error().message);
  const std::string hpaPath =
      fmt::format("/apis/autoscaling/{}/namespaces/{}/horizontalpodautoscalers/{}", *version, ns, name);
  auto hpa = client.get(hpaPath);
  if (!hpa.ok()) return Error::format("{}: GET {}: {}", server, hpaPath, hpa.error().message);
  std::vector<explain::SnapshotSource> sources;
  sources.push_back(source(server + hpaPath, *hpa, "autoscaling/" + *version, "HorizontalPodAutoscaler"));

  const json& ref = member(member(*hpa, "spec"), "scaleTargetRef");
  const std::string kind = stringValue(ref, "kind");
  const std::string targetName = stringValue(ref, "name");
  const std::string group = groupOf(stringValue(ref, "apiVersion"));
  if (kind.empty() || targetName.empty()) return sources;  // the replay reports the HPA's own problem
  auto mappings = discovery.mappingsFor(group, kind);
  if (!mappings.ok() || mappings->empty()) {
    return Error::format("{}: the HPA's target {} {}: {}", server, kind, targetName,
                         mappings.ok() ? std::string("no such resource") : mappings.error().message);
  }
  const auto& mapping = mappings->front();
  const bool workload = isWorkloadKind(group, kind);
  const std::string path = resourcePath(mapping, ns, targetName) + (workload ? "" : "/scale");
  auto target = client.get(path);
  if (!target.ok()) return Error::format("{}: GET {}: {}", server, path, target.error().message);
  sources.push_back(workload ? source(server + path, *target, group.empty() ? mapping.version
                                                                            : group + "/" + mapping.version,
                                      kind)
                             : source(server + path, *target, "autoscaling/v1", "Scale"));
  return sources;
}

}  // namespace hpa::replay
