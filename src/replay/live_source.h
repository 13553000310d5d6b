#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "explain/snapshot.h"
#include "kube/rest_client.h"

namespace hpa::replay {

// The HPA `key` ("namespace/name") and its scale target read from a cluster, as snapshot sources
// (the objects' JSON, named after where they came from) for explain::loadSnapshot: the HPA through
// autoscaling/v2 or v2beta2, whichever the server serves; a Deployment, StatefulSet, ReplicaSet
// or ReplicationController target itself (its pod template carries the requests); any other kind
// through its /scale subresource. Reads only (GETs and discovery).
Result<std::vector<explain::SnapshotSource>> fetchLive(kube::RestClient& client, const std::string& key);

}  // namespace hpa::replay
