#include "sim/cluster.h"

#include <fmt/format.h>

namespace hpa::sim {
namespace {

using nlohmann::json;

std::string nodeName(int i) { return fmt::format("sim-node-{}", i); }

std::optional<Time> timeAt(const json& j, const char* field) {
  if (!j.contains(field) || !j[field].is_string()) return std::nullopt;
  auto t = parseRFC3339(j[field].get<std::string>());
  return t.ok() ? std::optional<Time>(*t) : std::nullopt;
}

std::string serviceName(const ServedVersion& v) {
  std::string name = "hpa-sim-" + v.group + "-" + v.version;
  for (auto& c : name) {
    if (c == '.') c = '-';
  }
  return name.substr(0, 63);
}

Status createOrReplace(kube::RestClient& client, const std::string& collection, const std::string& name, json body) {
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

Status PodLifecycle::registerNodes() {
  for (int i = 0; i < settings_.nodes; ++i) {
    json node{{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"name", nodeName(i)}, {"labels", {{"kubernetes.io/hostname", nodeName(i)}, {"hpa-sim", "true"}}}}}};
    auto created = client_.send("POST", "/api/v1/nodes", &node);
    if (!created.ok() && created.error().httpCode != 409) return created.error();
    json status{{"status",
                 {{"capacity", {{"cpu", "64"}, {"memory", "256Gi"}, {"pods", "500"}}},
                  {"allocatable", {{"cpu", "64"}, {"memory", "256Gi"}, {"pods", "500"}}},
                  {"conditions",
                   {{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}, {"message", "hpa-sim node"},
                     {"lastHeartbeatTime", formatRFC3339(clock_.now())},
                     {"lastTransitionTime", formatRFC3339(clock_.now())}}}}}}};
    auto patched = client_.send("PATCH", "/api/v1/nodes/" + nodeName(i) + "/status", &status,
                                "application/merge-patch+json");
    if (!patched.ok()) return patched.error();
  }
  return Status();
}

void PodLifecycle::sync() {
  std::vector<SimPod> seen;
  for (const auto& ns : settings_.namespaces) {
    auto list = client_.get("/api/v1/namespaces/" + ns + "/pods");
    if (!list.ok()) {
      logger_.error("listing pods failed", "namespace", ns, "err", list.error().message);
      continue;
    }
    if (!list->contains("items") || !(*list)["items"].is_array()) continue;
    for (const auto& pod : (*list)["items"]) {
      try {
        syncPod(pod);
        const auto& meta = pod["metadata"];
        if (meta.contains("deletionTimestamp")) continue;
        SimPod p;
        p.namespace_ = ns;
        p.name = meta.value("name", "");
        if (meta.contains("labels") && meta["labels"].is_object()) {
          for (const auto& [k, v] : meta["labels"].items()) {
            if (v.is_string()) p.labels.set(k, v.get<std::string>());
          }
        }
        for (const auto& c : pod["spec"].value("containers", json::array())) p.containers.push_back(c.value("name", ""));
        for (const auto& c : pod.value("status", json::object()).value("conditions", json::array())) {
          if (c.value("type", "") == "Ready") p.ready = c.value("status", "") == "True";
        }
        seen.push_back(std::move(p));
      } catch (const std::exception& e) {
        // Odd objects are skipped, never fatal.
        logger_.error("skipping a pod", "err", e.what());
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  pods_ = std::move(seen);
}

void PodLifecycle::syncPod(const json& pod) {
  const auto& meta = pod.at("metadata");
  const std::string ns = meta.value("namespace", "");
  const std::string name = meta.value("name", "");
  const std::string base = "/api/v1/namespaces/" + ns + "/pods/" + name;
  const Time now = clock_.now();
  if (meta.contains("deletionTimestamp")) {
    // What a kubelet confirms once the containers are gone.
    json opts{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"gracePeriodSeconds", 0}};
    auto r = client_.send("DELETE", base, &opts);
    if (!r.ok() && r.error().httpCode != 404) logger_.error("deleting pod failed", "pod", ns + "/" + name, "err", r.error().message);
    return;
  }
  const json spec = pod.value("spec", json::object());
  if (spec.value("nodeName", "").empty()) {
    json binding{{"apiVersion", "v1"},
                 {"kind", "Binding"},
                 {"metadata", {{"name", name}, {"namespace", ns}}},
                 {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", nodeName(nextNode_++ % settings_.nodes)}}}};
    auto r = client_.send("POST", base + "/binding", &binding);
    if (!r.ok()) logger_.error("binding pod failed", "pod", ns + "/" + name, "err", r.error().message);
    return;
  }
  const json status = pod.value("status", json::object());
  const Time created = timeAt(meta, "creationTimestamp").value_or(now);
  if (now < created + settings_.startDelay) return;
  const std::optional<Time> started = timeAt(status, "startTime");
  const Time startTime = started.value_or(now);
  const bool ready = now >= startTime + settings_.readinessDelay;
  bool currentlyReady = false;
  for (const auto& c : status.value("conditions", json::array())) {
    if (c.value("type", "") == "Ready") currentlyReady = c.value("status", "") == "True";
  }
  if (started && status.value("phase", "") == "Running" && currentlyReady == ready) return;

  const std::string startText = formatRFC3339(startTime);
  const std::string readyText = formatRFC3339(ready ? startTime + settings_.readinessDelay : startTime);
  json containerStatuses = json::array();
  for (const auto& c : spec.value("containers", json::array())) {
    containerStatuses.push_back({{"name", c.value("name", "")},
                                 {"image", c.value("image", "")},
                                 {"imageID", ""},
                                 {"ready", ready},
                                 {"started", true},
                                 {"restartCount", 0},
                                 {"state", {{"running", {{"startedAt", startText}}}}}});
  }
  const char* readyStatus = ready ? "True" : "False";
  json patch{{"status",
              {{"phase", "Running"},
               {"startTime", startText},
               {"hostIP", "10.0.0.1"},
               {"podIP", fmt::format("10.1.{}.{}", (std::hash<std::string>{}(name) >> 8) % 250, std::hash<std::string>{}(name) % 250 + 1)},
               {"conditions",
                {{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", startText}},
                 {{"type", "Initialized"}, {"status", "True"}, {"lastTransitionTime", startText}},
                 {{"type", "ContainersReady"}, {"status", readyStatus}, {"lastTransitionTime", readyText}},
                 {{"type", "Ready"}, {"status", readyStatus}, {"lastTransitionTime", readyText}}}},
               {"containerStatuses", containerStatuses}}}};
  auto r = client_.send("PATCH", base + "/status", &patch, "application/merge-patch+json");
  if (!r.ok() && r.error().httpCode != 404) logger_.error("pod status update failed", "pod", ns + "/" + name, "err", r.error().message);
}

std::vector<SimPod> PodLifecycle::pods() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_;
}

Status registerApiServices(kube::RestClient& client, int port) {
  for (const auto& v : servedVersions()) {
    const std::string svc = serviceName(v);
    json service{{"apiVersion", "v1"},
                 {"kind", "Service"},
                 {"metadata", {{"name", svc}, {"namespace", "kube-system"}}},
                 {"spec", {{"type", "ExternalName"}, {"externalName", "localhost"},
                           {"ports", {{{"name", "https"}, {"port", port}, {"protocol", "TCP"}}}}}}};
    if (auto s = createOrReplace(client, "/api/v1/namespaces/kube-system/services", svc, service); !s.ok()) return s;
    const std::string name = v.version + "." + v.group;
    json apiService{{"apiVersion", "apiregistration.k8s.io/v1"},
                    {"kind", "APIService"},
                    {"metadata", {{"name", name}, {"labels", {{"app.kubernetes.io/managed-by", "hpa-sim"}}}}},
                    {"spec",
                     {{"group", v.group},
                      {"version", v.version},
                      {"service", {{"namespace", "kube-system"}, {"name", svc}, {"port", port}}},
                      {"insecureSkipTLSVerify", true},
                      {"groupPriorityMinimum", 100},
                      {"versionPriority", v.versionPriority}}}};
    if (auto s = createOrReplace(client, "/apis/apiregistration.k8s.io/v1/apiservices", name, apiService); !s.ok()) return s;
  }
  return Status();
}

void unregisterApiServices(kube::RestClient& client) {
  for (const auto& v : servedVersions()) {
    (void)client.send("DELETE", "/apis/apiregistration.k8s.io/v1/apiservices/" + v.version + "." + v.group, nullptr);
    (void)client.send("DELETE", "/api/v1/namespaces/kube-system/services/" + serviceName(v), nullptr);
  }
}

}  // namespace hpa::sim
