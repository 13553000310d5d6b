#include "kube/client_config.h"

#include <cstdlib>
#include <utility>

#include "kube/kubeconfig.h"

namespace hpa::kube {
namespace {

std::string envOr(const char* name, std::string fallback = "") {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::move(fallback);
}

}  // namespace

Result<RestConfig> resolveRestConfig(const ConnectionFlags& flags) {
  const std::string kubeconfigEnv = envOr("KUBECONFIG");
  if (flags.kubeconfig.empty() && kubeconfigEnv.empty() &&
      !envOr("KUBERNETES_SERVICE_HOST").empty()) {
    auto c = inClusterConfig(
        InClusterEnv{envOr("KUBERNETES_SERVICE_HOST"), envOr("KUBERNETES_SERVICE_PORT")});
    if (!c.ok()) return c.error();
    if (!flags.master.empty()) c->server = flags.master;
    return c;
  }
  return loadKubeconfig(KubeconfigOptions{flags.kubeconfig, flags.context, flags.master,
                                          kubeconfigEnv, envOr("HOME")});
}

}  // namespace hpa::kube
