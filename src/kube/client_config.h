#pragma once

#include <string>

#include "common/result.h"
#include "kube/rest_config.h"

namespace hpa::kube {

// The connection flags every command of ours takes (kube-controller-manager's names).
struct ConnectionFlags {
  std::string kubeconfig;  // --kubeconfig
  std::string context;     // --context
  std::string master;      // --master
};

// client-go's resolution, reading the environment: --kubeconfig or $KUBECONFIG first; inside a
// pod (KUBERNETES_SERVICE_HOST set), the service account; else ~/.kube/config. --master
// overrides the server either way.
Result<RestConfig> resolveRestConfig(const ConnectionFlags& flags);

}  // namespace hpa::kube
