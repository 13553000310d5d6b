#pragma once

#include <string>
#include <vector>

#include "api/history.h"
#include "kube/read_only_transport.h"

namespace hpa::explain {

// What a live `explain` read, as a snapshot file that loadSnapshot reads back (`--save`): the
// API objects exactly as the server returned them (without managedFields), as YAML documents:
// the HorizontalPodAutoscalers, the targets' Scales, an AutoscalerHistory per HPA that had a
// persisted one, then a List each of Pods, PodMetrics, custom metric values and external metric
// values. Discovery documents are left out; an object read twice (one pod listed for two
// selectors) is written once. `comments` become `#` lines at the top.
std::string writeSnapshot(const std::vector<kube::RecordedResponse>& responses,
                          const std::vector<api::AutoscalerHistory>& histories,
                          const std::vector<std::string>& comments);

}  // namespace hpa::explain
