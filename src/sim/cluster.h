#pragma once

#include <string>

#include "common/clock.h"
#include "common/result.h"
#include "kube/rest_client.h"

namespace hpa::sim {

// The name of fake node `i` ("sim-node-0", ...).
std::string simNodeName(int i);

// Registers `count` fake Nodes (created if missing) with a Ready status and ample capacity.
Status registerNodes(kube::RestClient& client, int count, Clock& clock);

// The nodes' heartbeat: their Ready condition's lastHeartbeatTime set to now, as a kubelet posts
// it, so that a node lifecycle controller (kube-controller-manager with `--controllers=*`) keeps
// them Ready instead of tainting them unreachable and evicting their pods.
Status renewNodes(kube::RestClient& client, int count, Clock& clock);
// How often the heartbeat runs: the kubelet's default node status update frequency.
inline constexpr std::chrono::seconds kNodeHeartbeatInterval{10};

// APIService registrations pointing the aggregator at localhost:port (ExternalName Services in
// kube-system), created or replaced at start and removed at exit.
Status registerApiServices(kube::RestClient& client, int port);
void unregisterApiServices(kube::RestClient& client);

}  // namespace hpa::sim
