#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "kube/rest_config.h"

namespace hpa::kube {

// Where to look, as client-go's loading rules: an explicit --kubeconfig wins; else $KUBECONFIG
// (a list of paths, merged: the first file to set a map entry or a value wins); else
// ~/.kube/config. `context` and `master` override the current context and the server.
struct KubeconfigOptions {
  std::string explicitPath;   // --kubeconfig
  std::string context;        // --context
  std::string master;         // --master
  std::string kubeconfigEnv;  // $KUBECONFIG as read by the caller
  std::string home;           // $HOME
};

// Loads and resolves a kubeconfig into a RestConfig. Errors name the file and the field, e.g.
// "/home/me/.kube/config: users[0].user.client-key: cannot read /nope.pem: No such file or
// directory".
Result<RestConfig> loadKubeconfig(const KubeconfigOptions& options);

// Parses one kubeconfig document (YAML or JSON) read from `path` (used for messages and to
// resolve relative file references) and resolves it as above; exposed for tests.
Result<RestConfig> resolveKubeconfigText(
    const std::vector<std::pair<std::string, std::string>>& files, const std::string& context,
    const std::string& master);

// In-cluster: KUBERNETES_SERVICE_HOST/PORT, the service-account token file (re-read as it
// rotates), its ca.crt and namespace. `root` prefixes the service-account directory (tests).
struct InClusterEnv {
  std::string host;
  std::string port;
  std::string serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";
};
Result<RestConfig> inClusterConfig(const InClusterEnv& env);

// Reads a whole file; errors carry strerror text.
Result<std::string> readTextFile(const std::string& path);

}  // namespace hpa::kube
