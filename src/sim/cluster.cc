#include "sim/cluster.h"

#include <fmt/format.h>

#include "sim/metrics_api.h"

namespace hpa::sim {
namespace {

using nlohmann::json;

std::string serviceName(const ServedVersion& v) {
  std::string name = "hpa-sim-" + v.group + "-" + v.version;
  for (auto& c : name) {
    if (c == '.') c = '-';
  }
  return name.substr(0, 63);
}

Status createOrReplace(kube::RestClient& client, const std::string& collection,
                       const std::string& name, json body) {
  auto existing = client.get(collection + "/" + name);
  if (existing.ok()) {
    body["metadata"]["resourceVersion"] = (*existing)["metadata"]["resourceVersion"];
    auto r = client.send("PUT", collection + "/" + name, &body);
    return r.ok() ? Status() : Status(r.error());
  }
  auto r = client.send("POST", collection, &body);
  return r.ok() ? Status() : Status(r.error());
}

}  // namespace

std::string simNodeName(int i) { return fmt::format("sim-node-{}", i); }

namespace {

// A merge patch of a node's status: Ready, heartbeat now. (A merge patch replaces the list of
// conditions, so the transition time is only given where it is the node's first.)
Status postNodeStatus(kube::RestClient& client, int i, Clock& clock, bool first) {
  json ready{{"type", "Ready"},
             {"status", "True"},
             {"reason", "KubeletReady"},
             {"message", "hpa-sim node"},
             {"lastHeartbeatTime", formatRFC3339(clock.now())}};
  json status{{"conditions", {ready}}};
  if (first) {
    status["conditions"][0]["lastTransitionTime"] = formatRFC3339(clock.now());
    status["capacity"] = {{"cpu", "64"}, {"memory", "256Gi"}, {"pods", "500"}};
    status["allocatable"] = status["capacity"];
  } else if (auto node = client.get("/api/v1/nodes/" + simNodeName(i)); node.ok()) {
    for (const auto& c : (*node)["status"].value("conditions", json::array())) {
      if (c.value("type", "") == "Ready")
        status["conditions"][0]["lastTransitionTime"] = c.value("lastTransitionTime", "");
    }
  }
  json body{{"status", status}};
  auto patched = client.send("PATCH", "/api/v1/nodes/" + simNodeName(i) + "/status", &body,
                             "application/merge-patch+json");
  return patched.ok() ? Status() : Status(patched.error());
}

}  // namespace

Status registerNodes(kube::RestClient& client, int count, Clock& clock) {
  for (int i = 0; i < count; ++i) {
    json node{{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata",
               {{"name", simNodeName(i)},
                {"labels", {{"kubernetes.io/hostname", simNodeName(i)}, {"hpa-sim", "true"}}}}}};
    auto created = client.send("POST", "/api/v1/nodes", &node);
    if (!created.ok() && created.error().httpCode != 409) return created.error();
    if (auto s = postNodeStatus(client, i, clock, true); !s.ok()) return s;
  }
  return Status();
}

Status renewNodes(kube::RestClient& client, int count, Clock& clock) {
  for (int i = 0; i < count; ++i) {
    if (auto s = postNodeStatus(client, i, clock, false); !s.ok()) return s;
  }
  return Status();
}

Status registerApiServices(kube::RestClient& client, int port) {
  for (const auto& v : servedVersions()) {
    const std::string svc = serviceName(v);
    json service{{"apiVersion", "v1"},
                 {"kind", "Service"},
                 {"metadata", {{"name", svc}, {"namespace", "kube-system"}}},
                 {"spec",
                  {{"type", "ExternalName"},
                   {"externalName", "localhost"},
                   {"ports", {{{"name", "https"}, {"port", port}, {"protocol", "TCP"}}}}}}};
    if (auto s = createOrReplace(client, "/api/v1/namespaces/kube-system/services", svc, service);
        !s.ok())
      return s;
    const std::string name = v.version + "." + v.group;
    json apiService{
        {"apiVersion", "apiregistration.k8s.io/v1"},
        {"kind", "APIService"},
        {"metadata", {{"name", name}, {"labels", {{"app.kubernetes.io/managed-by", "hpa-sim"}}}}},
        {"spec",
         {{"group", v.group},
          {"version", v.version},
          {"service", {{"namespace", "kube-system"}, {"name", svc}, {"port", port}}},
          {"insecureSkipTLSVerify", true},
          {"groupPriorityMinimum", 100},
          {"versionPriority", v.versionPriority}}}};
    if (auto s = createOrReplace(client, "/apis/apiregistration.k8s.io/v1/apiservices", name,
                                 apiService);
        !s.ok())
      return s;
  }
  return Status();
}

void unregisterApiServices(kube::RestClient& client) {
  for (const auto& v : servedVersions()) {
    (void)client.send("DELETE",
                      "/apis/apiregistration.k8s.io/v1/apiservices/" + v.version + "." + v.group,
                      nullptr);
    (void)client.send("DELETE", "/api/v1/namespaces/kube-system/services/" + serviceName(v),
                      nullptr);
  }
}

}  // namespace hpa::sim
