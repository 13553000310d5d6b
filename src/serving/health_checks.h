#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/log.h"
#include "common/result.h"
#include "serving/http_server.h"

namespace hpa::serving {

// One named check of /healthz and /livez (kube-apiserver's healthz.HealthChecker): it passes, or
// fails saying why. `check` must be thread-safe and quick: a probe waits for it.
struct HealthCheck {
  std::string name;
  std::function<Status()> check;
};

// The answer of /healthz or /livez (`endpoint`: "healthz" or "livez") as kube-apiserver's and
// kube-controller-manager's healthz handler gives it. "ping", which always passes, comes first,
// then `checks` in order. All passing: 200 and "ok" (with ?verbose, a line per check and
// "<endpoint> check passed"). Any failing: 500 with a line per check, "[+]<name> ok" or
// "[-]<name> failed: reason withheld", then "<endpoint> check failed", and each failure with its
// reason logged. The reason is withheld as upstream withholds it: these paths are open to anonymous
// callers (--authorization-always-allow-paths), and a reason names HPAs.
ServerResponse healthResponse(std::string_view endpoint, const std::vector<HealthCheck>& checks,
                              bool verbose, const Logger& logger);

}  // namespace hpa::serving
