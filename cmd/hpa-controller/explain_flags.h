#pragma once

#include <memory>
#include <string>
#include <vector>

#include "adapters/prometheus_history.h"
#include "common/clock.h"
#include "decision_flags.h"
#include "explain/explain.h"
#include "kube/client_config.h"

namespace hpa::cmd {

// Exit codes: a decision (even "cannot scale") is 0; a cluster that could not be read (live
// mode) is 1; unusable input or flags is 2.
inline constexpr int kExitDecision = 0;
inline constexpr int kExitClusterUnreadable = 1;
inline constexpr int kExitUnusableInput = 2;

struct ExplainFlags {
  // Offline: snapshot files.
  std::vector<std::string> files;
  std::string now;
  std::string hpa;
  // Live: NAMESPACE/NAME or NAME, or every HPA of a namespace / of the cluster.
  std::vector<std::string> targets;
  std::string namespace_;
  bool all = false;
  bool allNamespaces = false;
  kube::ConnectionFlags connection;
  std::string save;
  // Both.
  std::string output;
  std::string forecastHistory;  // --forecast-history FILE
  // --forecast-prometheus-url and its credentials: a forecast's history read from there at once.
  adapters::PrometheusHistorySettings forecastPrometheus;
  controller::DecisionFlagValues decision;
};

// Prints "hpa-controller explain: <message>" to stderr and returns `code`.
int explainFailure(const std::string& message, int code = kExitUnusableInput);

// --forecast-history: the range query's answer `path` names, as what a forecast reads; "" sets
// none. The error names the file.
Status loadForecastHistory(const std::string& path, explain::ExplainOptions& options);

// --forecast-prometheus-url: into `prometheus` (kept by the caller while it explains, with
// `clock`), the Prometheus a forecast reads its history from, waiting for each answer; none
// without the flag. Refused beside --forecast-history.
Status connectForecastPrometheus(const ExplainFlags& flags, Clock& clock,
                                 std::unique_ptr<adapters::PrometheusHistory>& prometheus,
                                 explain::ExplainOptions& options);

// `hpa-controller explain NAMESPACE/NAME`, `--all`, `-A`: explain_live_command.cc.
int runLiveExplain(const ExplainFlags& flags);

}  // namespace hpa::cmd
