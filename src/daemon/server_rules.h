#pragma once

#include "common/log.h"
#include "common/result.h"
#include "controller/decision_flags.h"
#include "kube/rest_client.h"
#include "replicacalc/decision_rules.h"

namespace hpa::daemon {

// The rules the decision flags choose beside the API server `client` talks to: with
// --decision-rules=auto the release of the server (GET /version), else the release given (with a
// warning when the server runs another). Logs the choice, the warning and each ignored feature
// gate once. Errors: the server's release cannot be read under auto, or a gate the chosen release
// locks is turned off.
Result<replicacalc::DecisionRules> decisionRulesBesideServer(
    const controller::DecisionSettings& settings, kube::RestClient& client, const Logger& logger);

}  // namespace hpa::daemon
