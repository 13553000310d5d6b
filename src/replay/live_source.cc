#include "replay/live_source.h"

#include <fmt/format.h>

#include "api/meta.h"
#include "api/workload.h"
#include "common/json_value.h"
#include "common/quote.h"
#include "kube/discovery.h"

namespace hpa::replay {
namespace {

using nlohmann::json;

std::string resourcePath(const kube::GroupVersionResource& r, const std::string& ns,
                         const std::string& name) {
  return fmt::format("{}/namespaces/{}/{}/{}", kube::groupVersionPath(r.group, r.version), ns,
                     r.resource, name);
}

// Objects as a GET returns them, with apiVersion and kind set (a server may leave them out).
explain::SnapshotSource source(const std::string& name, json object, const std::string& apiVersion,
                               const std::string& kind) {
  if (!object.contains("apiVersion")) object["apiVersion"] = apiVersion;
  if (!object.contains("kind")) object["kind"] = kind;
  return {name, object.dump()};
}

}  // namespace

Result<std::vector<explain::SnapshotSource>> fetchLive(kube::ReadOnlyClient& cluster,
                                                       const std::string& key) {
  const auto [ns, name] = api::splitObjectKey(key);
  if (ns.empty() || name.empty() || name.find('/') != std::string::npos) {
    return Error::format("--hpa {}: expected namespace/name", quote(key));
  }
  kube::RestClient& client = cluster.client();
  const std::string server = client.config().server;

  kube::Discovery discovery(client);
  auto version = discovery.pickVersion("autoscaling", {"v2", "v2beta2"});
  if (!version.ok())
    return Error::format("{}: cannot find the HPA API: {}", server, version.error().message);
  const std::string hpaPath = fmt::format(
      "/apis/autoscaling/{}/namespaces/{}/horizontalpodautoscalers/{}", *version, ns, name);
  auto hpa = client.get(hpaPath);
  if (!hpa.ok()) return Error::format("{}: GET {}: {}", server, hpaPath, hpa.error().message);
  std::vector<explain::SnapshotSource> sources;
  sources.push_back(
      source(server + hpaPath, *hpa, "autoscaling/" + *version, "HorizontalPodAutoscaler"));

  const json& ref = member(member(*hpa, "spec"), "scaleTargetRef");
  const std::string kind = stringValue(ref, "kind");
  const std::string targetName = stringValue(ref, "name");
  const std::string group = api::apiGroupOf(stringValue(ref, "apiVersion"));
  if (kind.empty() || targetName.empty())
    return sources;  // the replay reports the HPA's own problem
  auto mappings = discovery.mappingsFor(group, kind);
  if (!mappings.ok() || mappings->empty()) {
    return Error::format(
        "{}: the HPA's target {} {}: {}", server, kind, targetName,
        mappings.ok() ? std::string("no such resource") : mappings.error().message);
  }
  const auto& mapping = mappings->front();
  const bool workload = api::builtinWorkloadByKind(group, kind) != nullptr;
  const std::string path = resourcePath(mapping, ns, targetName) + (workload ? "" : "/scale");
  auto target = client.get(path);
  if (!target.ok()) return Error::format("{}: GET {}: {}", server, path, target.error().message);
  sources.push_back(
      workload ? source(server + path, *target, api::apiVersionOf(group, mapping.version), kind)
               : source(server + path, *target, "autoscaling/v1", "Scale"));
  return sources;
}

Result<explain::Snapshot> readLive(const kube::ConnectionFlags& connection,
                                   const std::string& key) {
  auto config = kube::resolveRestConfig(connection);
  if (!config.ok()) return config.error();
  RealClock clock;
  auto cluster = kube::ReadOnlyClient::connect(*config, clock);
  if (!cluster.ok()) return cluster.error();
  auto sources = fetchLive(**cluster, key);
  if (!sources.ok()) return sources.error();
  return explain::loadSnapshot(*sources);
}

}  // namespace hpa::replay
