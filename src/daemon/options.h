#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/time.h"
#include "controller/decision_flags.h"

namespace hpa::daemon {

// The daemon's settings. Flags that mirror kube-controller-manager keep its names and defaults;
// durations are kept as text until validate() (Go duration syntax, "15s", "5m0s").
struct DaemonOptions {
  std::string syncPeriod = "15s";  // --horizontal-pod-autoscaler-sync-period
  // The flags that change a decision, as explain and replay take them
  // (controller/decision_flags.h).
  controller::DecisionFlagValues decision;
  int concurrentSyncs = 5;                     // --concurrent-horizontal-pod-autoscaler-syncs
  std::string kubeconfig;                      // --kubeconfig
  std::string master;                          // --master
  std::string context;                         // --context
  double kubeApiQps = 20;                      // --kube-api-qps
  int kubeApiBurst = 30;                       // --kube-api-burst
  bool leaderElect = true;                     // --leader-elect
  std::string leaseDuration = "15s";           // --leader-elect-lease-duration
  std::string renewDeadline = "10s";           // --leader-elect-renew-deadline
  std::string retryPeriod = "2s";              // --leader-elect-retry-period
  std::string leaseName = "hpa-controller";    // --leader-elect-resource-name
  std::string leaseNamespace = "kube-system";  // --leader-elect-resource-namespace
  int verbosity = 0;                           // -v
  // Serving /healthz, /readyz and /metrics (kube-controller-manager's secure serving).
  int securePort = 10258;               // --secure-port (kcm's is 10257; 0: off)
  std::string bindAddress = "0.0.0.0";  // --bind-address (for --secure-port)
  std::string tlsCertFile;              // --tls-cert-file (empty: self-signed)
  std::string tlsPrivateKeyFile;        // --tls-private-key-file
  std::string clientCaFile;             // --client-ca-file
  std::string alwaysAllowPaths = "/healthz,/readyz,/livez";  // --authorization-always-allow-paths
  std::string tokenCacheTtl = "10s";         // --authentication-token-webhook-cache-ttl
  std::string authorizedCacheTtl = "10s";    // --authorization-webhook-cache-authorized-ttl
  std::string unauthorizedCacheTtl = "10s";  // --authorization-webhook-cache-unauthorized-ttl
  int port = 0;                              // --port: plain HTTP, no authentication (0: off)
  std::string address = "0.0.0.0";           // --address (for --port)
  std::string namespace_;                    // --namespace: watch one namespace only
  bool persistHistory = true;                // --persist-history
  // --metric-source-service-namespaces: where a metric's Service route may lead (comma-separated;
  // empty: nowhere). The route carries the controller's token, so only the namespaces where the
  // cluster's admins run adapters may receive it.
  std::string metricSourceServiceNamespaces;
  // Beside another HPA controller: decide, compare with its decisions, write nothing.
  bool shadow = false;  // --shadow
  // Where hpa-controller.io/forecast reads a metric's history: Prometheus' HTTP API (empty: no
  // history, so no forecast floor; the Forecast condition says so).
  std::string forecastPrometheusUrl;              // --forecast-prometheus-url
  std::string forecastPrometheusBearerTokenFile;  // --forecast-prometheus-bearer-token-file
  std::string forecastPrometheusCaFile;           // --forecast-prometheus-ca-file
  bool forecastPrometheusInsecureSkipTlsVerify =
      false;                                  // --forecast-prometheus-insecure-skip-tls-verify
  std::string forecastHistoryRefresh = "5m";  // --forecast-history-refresh
};

// The options as the daemon uses them, after validation.
struct ValidatedOptions {
  DaemonOptions raw;
  Duration syncPeriod{0};
  controller::DecisionSettings decision;
  Duration leaseDuration{0};
  Duration renewDeadline{0};
  Duration retryPeriod{0};
  Duration tokenCacheTtl{0};
  Duration authorizedCacheTtl{0};
  Duration unauthorizedCacheTtl{0};
  std::vector<std::string> alwaysAllowPaths;
  std::vector<std::string> metricSourceServiceNamespaces;
  // --forecast-prometheus-url without a trailing slash; empty: no history source.
  std::string forecastPrometheusUrl;
  Duration forecastHistoryRefresh{0};
  // --leader-elect-resource-name; in shadow mode its default gains "-shadow", so a shadow runs
  // beside the controller it watches (each with its own leader) without taking that Lease.
  std::string leaseName;
  // The release whose rules decide: validate() sets the one --decision-rules names (the newest
  // for auto); at start the daemon sets its choice beside the API server (server_rules.h).
  replicacalc::DecisionRules rules{};
};

// One clear message for the first invalid value.
Result<ValidatedOptions> validate(const DaemonOptions& options);

// Reads a YAML config file whose keys are the flag names without dashes
// (`horizontal-pod-autoscaler-sync-period: 30s`, `leader-elect: false`, `v: 2`), returning each
// value as the text a flag would carry. Unknown keys and non-scalar values are errors naming
// the file and key.
Result<std::map<std::string, std::string>> readConfigFile(
    const std::string& path, const std::vector<std::string>& knownKeys);

}  // namespace hpa::daemon
