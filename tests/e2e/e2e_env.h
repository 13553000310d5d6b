#pragma once

// Reads the local control plane's env file (hack/local-cluster.sh) for C++ e2e tests.

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

namespace hpa::e2e {

inline std::map<std::string, std::string> readEnvFile(const std::string& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos || line.empty() || line[0] == '#') continue;
    out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

// The cluster directory, from $HPA_E2E_DIR (set by the CTest fixture).
inline std::string clusterDir() {
  const char* dir = std::getenv("HPA_E2E_DIR");
  return dir ? dir : "";
}

inline std::map<std::string, std::string> clusterEnv() {
  return readEnvFile(clusterDir() + "/env");
}

// Runs hack/local-cluster.sh <command> against the test cluster; true on success.
inline bool localCluster(const std::string& command) {
  const std::string cmd = "hack/local-cluster.sh " + command + " --dir " + clusterDir() + " >&2";
  return std::system(cmd.c_str()) == 0;
}

}  // namespace hpa::e2e
