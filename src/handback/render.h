#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "handback/handback.h"

namespace hpa::handback {

// A table, one line per HPA: NAMESPACE, NAME, what has no effect on decisions, and the controls
// that stop applying, each with what changes; then the counts ("2 HPAs with controls that stop
// applying, 1 with bookkeeping only").
std::string handbackTable(const HandbackReport& report);

// {"hpas": [{"namespace", "name", "controlsStopApplying", "annotations": [{"annotation", "kind",
// "whenHandedBack"}]}], "withControlsThatStopApplying": N, "withBookkeepingOnly": M}
nlohmann::json handbackToJson(const HandbackReport& report);

// For each HPA, the command that removes every hpa-controller.io/ annotation it carries:
// "kubectl annotate hpa -n NS NAME key- key- ...", one per line.
std::string cleanupCommands(const HandbackReport& report);

}  // namespace hpa::handback
