#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/time.h"
#include "sim/load_model.h"
#include "sim/pod_index.h"

namespace hpa::sim {

struct ApiResponse {
  int status = 200;
  nlohmann::json body;
};

// The three metrics APIs as metrics-server, prometheus-adapter and KEDA serve them, as a pure
// function of the request, the cluster's pods and the load model: discovery documents,
// PodMetrics (list by namespace and label selector, get by name), custom metrics for pods and
// named objects (v1beta1 and v1beta2 shapes), and external metrics. Errors are metav1.Status.
// Pods are looked up in the index, so an answer costs what it returns.
ApiResponse serveMetricsApi(const std::string& path,
                            const std::map<std::string, std::string>& query, const PodIndex& pods,
                            LoadModel& model, Time now);
// The same over a plain list of pods (indexed for the call).
ApiResponse serveMetricsApi(const std::string& path,
                            const std::map<std::string, std::string>& query,
                            const std::vector<SimPod>& pods, LoadModel& model, Time now);

// The APIService registrations the simulator serves (group, version, priority).
struct ServedVersion {
  std::string group;
  std::string version;
  int versionPriority;
};
const std::vector<ServedVersion>& servedVersions();

}  // namespace hpa::sim
