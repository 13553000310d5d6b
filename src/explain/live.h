#pragma once

#include <string>
#include <vector>

#include "api/history.h"
#include "common/result.h"
#include "explain/explain.h"
#include "kube/rest_client.h"

namespace hpa::explain {

// Which HPAs to explain on a live cluster.
struct LiveQuery {
  std::string ns;    // the namespace (ignored with allNamespaces)
  std::string name;  // one HPA; empty: every HPA of the namespace (or of the cluster)
  bool allNamespaces = false;
};

struct LiveExplanations {
  std::vector<Explanation> explanations;          // in namespace/name order
  std::vector<api::AutoscalerHistory> histories;  // restored from the HPAs' annotations
};

// Explains HPAs of a live cluster as the daemon would decide them now: reads the HPAs (the
// namespace's, for the ambiguous-selector check), each target's Scale through discovery, the
// pods of each selector and every metric through the daemon's own metrics client, restores each
// history from its annotation, and runs the reconcile with the clock stopped at options.now.
// It only reads: status and scale updates are recorded, events are not sent (give it a client
// over a ReadOnlyTransport to make that a property of the connection too). Errors: the HPA API
// could not be read, or `query.name` does not exist (NotFound).
Result<LiveExplanations> explainLive(kube::RestClient& client, const LiveQuery& query,
                                     const ExplainOptions& options);

}  // namespace hpa::explain
