#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/time.h"

namespace hpa::kube {

// An exec credential plugin (client.authentication.k8s.io/v1 or v1beta1) as kubeconfig names it.
struct ExecConfig {
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string apiVersion;
  std::string installHint;
  bool provideClusterInfo = false;
  std::string interactiveMode;  // Never / IfAvailable / Always; the daemon never has a terminal
  bool operator==(const ExecConfig&) const = default;
};

// Everything needed to talk to one API server, resolved from a kubeconfig or the in-cluster
// environment (client-go's rest.Config). PEM material is held in memory: files are read when the
// config is loaded, except the token file, which is re-read because bound tokens rotate.
struct RestConfig {
  std::string server;  // https://host:port, no trailing slash
  std::string caData;  // PEM; empty: the system trust store
  bool insecureSkipTlsVerify = false;
  std::string tlsServerName{};  // client-go's TLSClientConfig.ServerName; empty: the server's host
  std::string clientCertData;   // PEM
  std::string clientKeyData;    // PEM
  std::string bearerToken;
  std::string bearerTokenFile;
  std::string username;
  std::string password;
  std::optional<ExecConfig> exec;
  std::string userAgent;
  double qps = 20;                             // --kube-api-qps
  int burst = 30;                              // --kube-api-burst
  Duration timeout = std::chrono::seconds(0);  // per request; 0: the transport's default (32 s)
  // The longest wait before a retry (a Retry-After the server sends included).
  Duration maxRetryWait = std::chrono::seconds(10);
  std::string
      source;  // where this came from ("kubeconfig /path context ctx", "in-cluster"), for messages
  std::string defaultNamespace;
};

}  // namespace hpa::kube
