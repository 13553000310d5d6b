#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "explain/snapshot.h"
#include "kube/client_config.h"
#include "kube/read_only_client.h"

namespace hpa::replay {

// The HPA `key` ("namespace/name") and its scale target read from a cluster, as snapshot sources
// (the objects' JSON, named after where they came from) for explain::loadSnapshot: the HPA through
// autoscaling/v2 or v2beta2, whichever the server serves; a Deployment, StatefulSet, ReplicaSet
// or ReplicationController target itself (its pod template carries the requests); any other kind
// through its /scale subresource. Only through a read-only client: replay never writes.
Result<std::vector<explain::SnapshotSource>> fetchLive(kube::ReadOnlyClient& cluster,
                                                       const std::string& key);

// `replay --hpa KEY` without -f: the HPA and its target from the cluster `connection` names
// (--kubeconfig, --context, --master), read with GETs only.
Result<explain::Snapshot> readLive(const kube::ConnectionFlags& connection, const std::string& key);

}  // namespace hpa::replay
