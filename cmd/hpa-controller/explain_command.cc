#include "explain_command.h"

#include <iostream>
#include <memory>

#include "command_io.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/time.h"
#include "explain/explain.h"
#include "explain/recorded_history.h"
#include "explain/render.h"
#include "explain/snapshot.h"
#include "explain_flags.h"
#include "kube/kubeconfig.h"

namespace hpa::cmd {

int explainFailure(const std::string& message, int code) {
  std::cerr << "hpa-controller explain: " << message << "\n";
  return code;
}

Status loadForecastHistory(const std::string& path, explain::ExplainOptions& options) {
  if (path.empty()) return {};
  auto text = kube::readTextFile(path);
  if (!text.ok()) return text.error().wrap("--forecast-history");
  auto samples = explain::readRecordedHistory(*text);
  if (!samples.ok()) return samples.error().wrap("--forecast-history " + path);
  options.forecastHistory =
      std::make_shared<const std::vector<forecast::Sample>>(std::move(*samples));
  return {};
}

Status connectForecastPrometheus(const ExplainFlags& flags, Clock& clock,
                                 std::unique_ptr<adapters::PrometheusHistory>& prometheus,
                                 explain::ExplainOptions& options) {
  if (flags.forecastPrometheus.url.empty()) return {};
  if (!flags.forecastHistory.empty())
    return Error::of("give --forecast-history or --forecast-prometheus-url, not both");
  adapters::PrometheusHistorySettings settings = flags.forecastPrometheus;
  settings.waitForReads = true;
  // What a failed read says reaches the explanation (the Forecast condition): no log besides.
  auto created = adapters::PrometheusHistory::create(settings, clock, Logger::discard());
  if (!created.ok()) return created.error();
  prometheus = std::move(*created);
  options.forecastSource = prometheus.get();
  return {};
}

namespace {

int fail(const std::string& message) { return explainFailure(message); }

void addForecastPrometheusFlags(CLI::App& cmd, adapters::PrometheusHistorySettings& settings) {
  cmd.add_option("--forecast-prometheus-url", settings.url,
                 "read what hpa-controller.io/forecast reads from this Prometheus "
                 "(http(s)://host:port[/path]), with the HPA's query, as the daemon does");
  cmd.add_option("--forecast-prometheus-bearer-token-file", settings.bearerTokenFile,
                 "a file whose content is sent to that Prometheus as a bearer token");
  cmd.add_option("--forecast-prometheus-ca-file", settings.caFile,
                 "PEM certificates that verify Prometheus' serving certificate (default: the "
                 "system's)");
  cmd.add_flag("--forecast-prometheus-insecure-skip-tls-verify", settings.insecureSkipTlsVerify,
               "do not verify Prometheus' serving certificate (tests only)");
}

// Offline: `explain -f SNAPSHOT`.
int runSnapshotExplain(const ExplainFlags& flags) {
  explain::ExplainOptions options;
  options.hpaKey = flags.hpa;
  auto controller = offlineControllerOptions(flags.decision, "hpa-controller explain: ");
  if (!controller.ok()) return fail(controller.error().message);
  options.controller = *controller;
  if (flags.now.empty()) {
    options.now = std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
  } else {
    auto now = parseRFC3339(flags.now);
    if (!now.ok()) return fail("--now: " + now.error().message);
    options.now = *now;
  }
  if (auto loaded = loadForecastHistory(flags.forecastHistory, options); !loaded.ok())
    return fail(loaded.error().message);
  RealClock clock;
  std::unique_ptr<adapters::PrometheusHistory> prometheus;
  if (auto connected = connectForecastPrometheus(flags, clock, prometheus, options);
      !connected.ok())
    return fail(connected.error().message);
  const std::string output = outputFormat(flags.output);

  InputFiles inputs;
  auto sources = inputs.readAll(flags.files);
  if (!sources.ok()) return fail(sources.error().message);
  auto snapshot = explain::loadSnapshot(*sources);
  if (!snapshot.ok()) return fail(snapshot.error().message);
  auto explanation = explain::explainSnapshot(*snapshot, options);
  if (!explanation.ok()) return fail(explanation.error().message);
  if (output == "json") {
    std::cout << explain::explanationToJson(*explanation).dump(2) << "\n";
  } else {
    std::cout << explain::explanationToText(*explanation);
  }
  return kExitDecision;
}

// Snapshot files or a live cluster; the flags of the other mode are mistakes.
int runExplain(const ExplainFlags& flags) {
  const bool live = !flags.targets.empty() || flags.all || flags.allNamespaces;
  if (flags.files.empty() && !live) {
    return fail(
        "say what to explain: NAMESPACE/NAME (or NAME -n NAMESPACE), --all, -A, or -f SNAPSHOT");
  }
  if (!flags.files.empty()) {
    if (live) return fail("-f explains a snapshot; it does not take an HPA name, --all or -A");
    const auto& c = flags.connection;
    if (!flags.save.empty() || !c.kubeconfig.empty() || !c.context.empty() || !c.master.empty() ||
        !flags.namespace_.empty()) {
      return fail(
          "-f explains a snapshot; --save, --kubeconfig, --context, --master and -n are for a live "
          "cluster");
    }
    return runSnapshotExplain(flags);
  }
  if (!flags.now.empty())
    return fail("--now applies to snapshots (-f); a live cluster is explained as of now");
  if (!flags.hpa.empty()) return fail("--hpa chooses among the HPAs of a snapshot (-f)");
  return runLiveExplain(flags);
}

}  // namespace

controller::DecisionFlagValues& addExplainCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<ExplainFlags>();
  auto* cmd = app.add_subcommand("explain",
                                 "Show what the autoscaler would decide now for an HPA, and why: "
                                 "live from a cluster (read-only), or from "
                                 "objects exported from one (kubectl get -o yaml, kubectl get "
                                 "--raw, or explain --save). Writes nothing.");
  cmd->add_option("target", flags->targets,
                  "the HPA: NAMESPACE/NAME, or NAME in the namespace of -n (live mode)")
      ->expected(0, 1);
  cmd->add_option(
      "-n,--namespace", flags->namespace_,
      "the namespace of NAME or of --all (default: the context's namespace, else default)");
  cmd->add_flag("--all", flags->all, "every HPA of the namespace, as a table (-o json: an array)");
  cmd->add_flag("-A,--all-namespaces", flags->allNamespaces,
                "every HPA of the cluster, as a table");
  cmd->add_option("--save", flags->save,
                  "write what was read as a snapshot file, to replay offline with -f (and attach "
                  "to bug reports)");
  addConnectionFlags(*cmd, flags->connection, "");
  cmd->add_option("-f,--filename", flags->files,
                  "snapshot file (YAML or JSON; '-' for stdin); repeatable");
  cmd->add_option("--now", flags->now,
                  "the time of the decision for a snapshot, RFC 3339 (default: the current time)");
  addOutputFlag(*cmd, flags->output);
  cmd->add_option("--hpa", flags->hpa, "namespace/name of the HPA when the snapshot holds several");
  cmd->add_option("--forecast-history", flags->forecastHistory,
                  "what hpa-controller.io/forecast reads: a Prometheus range query's answer "
                  "(/api/v1/query_range JSON, series summed); without it a forecast has no "
                  "history and sets no floor");
  addForecastPrometheusFlags(*cmd, flags->forecastPrometheus);
  addDecisionFlags(*cmd, flags->decision);
  cmd->callback([flags, &run]() { run = [flags]() { return runExplain(*flags); }; });
  return flags->decision;
}

}  // namespace hpa::cmd
