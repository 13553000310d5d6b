// `hpa-controller explain NAMESPACE/NAME`, `--all`, `-A`: explain HPAs of a live cluster,
// reading with GETs only.
#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "command_io.h"
#include "common/clock.h"
#include "common/quote.h"
#include "common/time.h"
#include "explain/live.h"
#include "explain/render.h"
#include "explain/snapshot_writer.h"
#include "explain_flags.h"
#include "kube/client_config.h"
#include "kube/discovery.h"
#include "kube/read_only_client.h"

namespace hpa::cmd {
namespace {

// NAMESPACE/NAME, or NAME in the namespace of -n; the namespace is left empty when neither
// says it (the context's applies then).
Result<explain::LiveQuery> liveQuery(const ExplainFlags& flags) {
  explain::LiveQuery query;
  query.allNamespaces = flags.allNamespaces;
  query.ns = flags.namespace_;
  if (flags.targets.empty()) {
    if (!flags.all && !flags.allNamespaces)
      return Error::of("say which HPA: NAMESPACE/NAME, NAME -n NAMESPACE, --all or -A");
    return query;
  }
  if (flags.all || flags.allNamespaces) return Error::of("give an HPA name or --all/-A, not both");
  const std::string& target = flags.targets.front();
  if (auto slash = target.find('/'); slash != std::string::npos) {
    const std::string ns = target.substr(0, slash);
    if (!flags.namespace_.empty() && flags.namespace_ != ns) {
      return Error::format("{} names namespace {} but -n says {}", target, quote(ns),
                           quote(flags.namespace_));
    }
    query.ns = ns;
    query.name = target.substr(slash + 1);
  } else {
    query.name = target;
  }
  if (query.name.empty() || query.name.find('/') != std::string::npos ||
      (target.find('/') != std::string::npos && query.ns.empty())) {
    return Error::format("{} is not NAMESPACE/NAME or NAME", quote(target));
  }
  return query;
}

// The command that replays a saved snapshot offline, with the settings of this run; the release
// whose rules decided is named, so that offline (where auto means the newest) it decides alike.
std::string replayCommand(const ExplainFlags& flags, const explain::LiveExplanations& result,
                          Time now, const replicacalc::DecisionRules& rules) {
  std::string command =
      fmt::format("hpa-controller explain -f {} --now {}", flags.save, formatRFC3339(now));
  if (result.explanations.size() == 1) command += " --hpa " + result.explanations.front().hpaKey;
  for (const auto& argument : controller::decisionFlagArguments(flags.decision, rules))
    command += " " + argument;
  if (!flags.forecastHistory.empty()) command += " --forecast-history " + flags.forecastHistory;
  return command;
}

// The rules the flags choose beside the cluster (its release from GET /version), the choice's
// warnings and ignored gates on stderr. An error's exit code is in `code`.
Result<controller::ControllerOptions> optionsBesideCluster(
    const controller::DecisionSettings& settings, kube::RestClient& client, int& code) {
  code = kExitClusterUnreadable;
  std::optional<controller::ServerRelease> server;
  auto version = kube::serverVersion(client);
  if (!version.ok() && !settings.rulesMinor) return version.error();
  if (version.ok() && version->minorRelease())
    server = controller::ServerRelease{*version->minorRelease(), version->gitVersion};
  auto chosen = controller::chooseDecisionRules(settings, server);
  code = kExitUnusableInput;
  if (!chosen.ok()) return chosen.error();
  for (const auto& message : chosen->warnings)
    std::cerr << "hpa-controller explain: warning: " << message << "\n";
  for (const auto& message : chosen->ignoredGates)
    std::cerr << "hpa-controller explain: " << message << "\n";
  return controller::controllerOptionsOf(settings, chosen->rules);
}

}  // namespace

int runLiveExplain(const ExplainFlags& flags) {
  explain::ExplainOptions options;
  auto settings = controller::parseDecisionFlags(flags.decision);
  if (!settings.ok()) return explainFailure(settings.error().message);
  // Whole seconds, so that the time printed replays the same decision (--now takes RFC 3339).
  options.now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());

  auto query = liveQuery(flags);
  if (!query.ok()) return explainFailure(query.error().message);
  if (!flags.save.empty() && !flags.forecastPrometheus.url.empty()) {
    return explainFailure(
        "--save records the cluster's answers, not Prometheus': save the range query's answer "
        "and give it with --forecast-history instead of --forecast-prometheus-url");
  }
  auto config = kube::resolveRestConfig(flags.connection);
  if (!config.ok()) return explainFailure(config.error().message, kExitClusterUnreadable);
  if (query->ns.empty())
    query->ns = config->defaultNamespace.empty() ? "default" : config->defaultNamespace;

  // Every request goes through a client that refuses anything but GET.
  RealClock clock;
  auto cluster = kube::ReadOnlyClient::connect(*config, clock);
  if (!cluster.ok()) return explainFailure(cluster.error().message, kExitClusterUnreadable);
  int code = kExitDecision;
  auto controller = optionsBesideCluster(*settings, (*cluster)->client(), code);
  if (!controller.ok()) return explainFailure(controller.error().message, code);
  options.controller = *controller;
  if (auto loaded = loadForecastHistory(flags.forecastHistory, options); !loaded.ok())
    return explainFailure(loaded.error().message);
  std::unique_ptr<adapters::PrometheusHistory> prometheus;
  if (auto connected = connectForecastPrometheus(flags, clock, prometheus, options);
      !connected.ok())
    return explainFailure(connected.error().message);

  auto result = explain::explainLive((*cluster)->client(), *query, options);
  if (!result.ok()) return explainFailure(result.error().message, kExitClusterUnreadable);
  if (result->explanations.empty()) {
    std::cerr << (query->allNamespaces
                      ? std::string("no HorizontalPodAutoscalers in the cluster")
                      : fmt::format("no HorizontalPodAutoscalers in namespace {}", query->ns))
              << "\n";
  }

  if (!flags.save.empty()) {
    const std::string replay =
        replayCommand(flags, *result, options.now, options.controller.decisionRules);
    std::ofstream out(flags.save, std::ios::binary | std::ios::trunc);
    out << explain::writeSnapshot((*cluster)->responses(), result->histories,
                                  {fmt::format("hpa-controller explain --save: read from {} at {}",
                                               config->server, formatRFC3339(options.now)),
                                   "replay: " + replay});
    out.close();
    if (!out)
      return explainFailure(fmt::format("{}: cannot write the snapshot", flags.save),
                            kExitClusterUnreadable);
    std::cerr << fmt::format("snapshot saved to {}; replay it with: {}\n", flags.save, replay);
  }

  const bool table = flags.all || flags.allNamespaces;
  if (outputFormat(flags.output) == "json") {
    if (table) {
      nlohmann::json items = nlohmann::json::array();
      for (const auto& e : result->explanations) items.push_back(explain::explanationToJson(e));
      std::cout << items.dump(2) << "\n";
    } else {
      std::cout << explain::explanationToJson(result->explanations.front()).dump(2) << "\n";
    }
  } else if (table) {
    std::cout << explain::explanationsTable(result->explanations, query->allNamespaces);
  } else {
    std::cout << explain::explanationToText(result->explanations.front());
  }
  return kExitDecision;
}

}  // namespace hpa::cmd
