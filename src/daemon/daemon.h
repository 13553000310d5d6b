#pragma once

#include "daemon/options.h"

namespace hpa::daemon {

// Runs the controller until SIGINT/SIGTERM (exit code 0 after a clean shutdown: in-flight
// reconciles finish, the lease is released) or until leadership is lost (exit code 1, as
// kube-controller-manager exits then). Start-up failures print one message and return 1.
int runDaemon(const ValidatedOptions& options);

}  // namespace hpa::daemon
