#include "run_flags.h"

#include <cctype>
#include <charconv>
#include <functional>
#include <map>

#include "common/quote.h"

namespace hpa::cmd {
namespace {

using daemon::DaemonOptions;

// One setting: its flag name, help, and how to bind/assign it.
struct Setting {
  std::string name;
  std::string help;
  std::function<CLI::Option*(CLI::App&, DaemonOptions&)> bind;
  std::function<Status(DaemonOptions&, const std::string&)> assign;
};

template <typename T>
Setting setting(const std::string& name, const std::string& help, T DaemonOptions::*field) {
  Setting s;
  s.name = name;
  s.help = help;
  s.bind = [name, help, field](CLI::App& app, DaemonOptions& o) {
    std::string flag = name.size() == 1 ? "-" + name + ",--" + name : "--" + name;
    if constexpr (std::is_same_v<T, bool>) {
      // Go-style booleans: --leader-elect, --leader-elect=false.
      return app.add_flag(flag, o.*field,
                          help + " (default " + (o.*field ? "true" : "false") + ")");
    } else {
      return app.add_option(flag, o.*field, help)->capture_default_str();
    }
  };
  s.assign = [name, field](DaemonOptions& o, const std::string& text) -> Status {
    if constexpr (std::is_same_v<T, std::string>) {
      o.*field = text;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (text != "true" && text != "false")
        return Error::format("{}: must be true or false, got {}", name, quote(text));
      o.*field = text == "true";
    } else if constexpr (std::is_same_v<T, int>) {
      int v = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || p != text.data() + text.size())
        return Error::format("{}: not an integer: {}", name, quote(text));
      o.*field = v;
    } else {
      try {
        size_t used = 0;
        double v = std::stod(text, &used);
        if (used != text.size()) throw std::invalid_argument(text);
        o.*field = v;
      } catch (const std::exception&) {
        return Error::format("{}: not a number: {}", name, quote(text));
      }
    }
    return Status();
  };
  return s;
}

// A decision flag (controller/decision_flags.h): bound as explain and replay bind it, its value
// kept as text until validation checks it.
Setting decisionSetting(const controller::DecisionFlag& flag) {
  Setting s;
  s.name = std::string(flag.name);
  s.help = std::string(flag.help);
  s.bind = [&flag](CLI::App& app, DaemonOptions& o) {
    return app
        .add_option("--" + std::string(flag.name), o.decision.*flag.value, std::string(flag.help))
        ->capture_default_str();
  };
  s.assign = [&flag](DaemonOptions& o, const std::string& text) {
    o.decision.*flag.value = text;
    return Status();
  };
  return s;
}

std::vector<Setting> withDecisionSettings(std::vector<Setting> others) {
  std::vector<Setting> all;
  for (const auto& flag : controller::decisionFlags()) all.push_back(decisionSetting(flag));
  all.insert(all.end(), std::make_move_iterator(others.begin()),
             std::make_move_iterator(others.end()));
  return all;
}

// The cluster, its API and the election, then what is served and how the controller acts.
std::vector<Setting> clusterSettings() {
  return {
      setting("horizontal-pod-autoscaler-sync-period",
              "period for syncing the number of pods in horizontal pod autoscaler",
              &DaemonOptions::syncPeriod),
      setting("concurrent-horizontal-pod-autoscaler-syncs",
              "number of horizontal pod autoscaler objects that are allowed to sync concurrently",
              &DaemonOptions::concurrentSyncs),
      setting("kubeconfig",
              "path to a kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)",
              &DaemonOptions::kubeconfig),
      setting("master",
              "the address of the Kubernetes API server (overrides any value in kubeconfig)",
              &DaemonOptions::master),
      setting("context", "the kubeconfig context to use", &DaemonOptions::context),
      setting("kube-api-qps", "QPS to use while talking with kubernetes apiserver",
              &DaemonOptions::kubeApiQps),
      setting("kube-api-burst", "burst to use while talking with kubernetes apiserver",
              &DaemonOptions::kubeApiBurst),
      setting("leader-elect",
              "start a leader election client and gain leadership before executing the main loop",
              &DaemonOptions::leaderElect),
      setting(
          "leader-elect-lease-duration",
          "duration that non-leader candidates will wait before forcing acquisition of leadership",
          &DaemonOptions::leaseDuration),
      setting("leader-elect-renew-deadline",
              "interval between attempts by the acting master to renew a leadership slot before it "
              "stops leading",
              &DaemonOptions::renewDeadline),
      setting("leader-elect-retry-period",
              "duration the clients should wait between attempting acquisition and renewal of a "
              "leadership",
              &DaemonOptions::retryPeriod),
      setting("leader-elect-resource-name", "name of the Lease used for leader election",
              &DaemonOptions::leaseName),
      setting("leader-elect-resource-namespace", "namespace of the Lease used for leader election",
              &DaemonOptions::leaseNamespace),
      setting("v", "log level verbosity (klog -v)", &DaemonOptions::verbosity),
  };
}

std::vector<Setting> servingSettings() {
  return {
      setting("secure-port",
              "the port on which to serve HTTPS with authentication and authorization (/healthz, "
              "/readyz, /metrics); 10258, not kube-controller-manager's 10257, so both can run on "
              "one node; 0: no HTTPS",
              &DaemonOptions::securePort),
      setting("bind-address",
              "the IP address on which to listen for the --secure-port port (0.0.0.0 or ::: all "
              "interfaces)",
              &DaemonOptions::bindAddress),
      setting("tls-cert-file",
              "file containing the default x509 certificate for HTTPS (CA cert, if any, "
              "concatenated after the server cert); if not given, a self-signed certificate is "
              "made in memory at start",
              &DaemonOptions::tlsCertFile),
      setting("tls-private-key-file",
              "file containing the default x509 private key matching --tls-cert-file",
              &DaemonOptions::tlsPrivateKeyFile),
      setting("client-ca-file",
              "if set, any request presenting a client certificate signed by one of the "
              "authorities in the client-ca-file is authenticated with an identity corresponding "
              "to the CommonName of the client certificate (groups: its Organizations)",
              &DaemonOptions::clientCaFile),
      setting("authorization-always-allow-paths",
              "a list of HTTP paths to skip during authorization, i.e. these are authorized "
              "without contacting the 'core' kubernetes server",
              &DaemonOptions::alwaysAllowPaths),
      setting("authentication-token-webhook-cache-ttl",
              "the duration to cache responses from the webhook token authenticator (TokenReview)",
              &DaemonOptions::tokenCacheTtl),
      setting("authorization-webhook-cache-authorized-ttl",
              "the duration to cache 'authorized' responses from the webhook authorizer "
              "(SubjectAccessReview)",
              &DaemonOptions::authorizedCacheTtl),
      setting("authorization-webhook-cache-unauthorized-ttl",
              "the duration to cache 'unauthorized' responses from the webhook authorizer "
              "(SubjectAccessReview)",
              &DaemonOptions::unauthorizedCacheTtl),
      setting("port",
              "the port on which to serve plain HTTP without authentication or authorization, for "
              "local runs; 0: off",
              &DaemonOptions::port),
      setting("address", "the IP address on which to serve the --port port",
              &DaemonOptions::address),
      setting("namespace", "watch and scale HPAs of this namespace only (default: all namespaces)",
              &DaemonOptions::namespace_),
      setting("metric-source-service-namespaces",
              "namespaces whose Services a metric's route (hpa-controller.io/metric-sources) may "
              "lead to, comma-separated: the route carries the controller's credentials (default: "
              "none, so only apiGroup routes work)",
              &DaemonOptions::metricSourceServiceNamespaces),
      setting("persist-history",
              "persist stabilization and behavior history on each HPA (annotation) so restarts and "
              "failovers keep it",
              &DaemonOptions::persistHistory),
      setting("shadow",
              "run beside another HPA controller (kube-controller-manager's) and write nothing: no "
              "scale, status, annotation or Event; compare each of its decisions with ours "
              "(hpa_controller_shadow_* on /metrics, a log line per divergence); the default Lease "
              "name gains -shadow",
              &DaemonOptions::shadow),
  };
}

// Where hpa-controller.io/forecast reads the history of a metric.
std::vector<Setting> forecastSettings() {
  return {
      setting("forecast-prometheus-url",
              "the Prometheus whose range queries give the history of the metrics an HPA's "
              "hpa-controller.io/forecast predicts (http(s)://host:port[/path]); empty: no "
              "history, so no forecast floor",
              &DaemonOptions::forecastPrometheusUrl),
      setting("forecast-prometheus-bearer-token-file",
              "a file whose content is sent to that Prometheus as a bearer token (re-read before "
              "each round of queries, so a rotated token is used)",
              &DaemonOptions::forecastPrometheusBearerTokenFile),
      setting(
          "forecast-prometheus-ca-file",
          "PEM certificates that verify Prometheus' serving certificate (default: the system's)",
          &DaemonOptions::forecastPrometheusCaFile),
      setting("forecast-prometheus-insecure-skip-tls-verify",
              "do not verify Prometheus' serving certificate (tests only)",
              &DaemonOptions::forecastPrometheusInsecureSkipTlsVerify),
      setting("forecast-history-refresh",
              "how old a forecast's history may grow before it is read again from Prometheus; "
              "failing reads keep the last one for three of these, then the forecast stops",
              &DaemonOptions::forecastHistoryRefresh),
  };
}

const std::vector<Setting>& settings() {
  static const std::vector<Setting> all = [] {
    std::vector<Setting> others = clusterSettings();
    std::vector<Setting> serving = servingSettings();
    std::vector<Setting> forecast = forecastSettings();
    others.insert(others.end(), std::make_move_iterator(serving.begin()),
                  std::make_move_iterator(serving.end()));
    others.insert(others.end(), std::make_move_iterator(forecast.begin()),
                  std::make_move_iterator(forecast.end()));
    return withDecisionSettings(std::move(others));
  }();
  return all;
}

}  // namespace

void addDaemonFlags(CLI::App& app, DaemonOptions& options, std::string& configFile) {
  for (const auto& s : settings()) s.bind(app, options);
  app.add_option("--config", configFile,
                 "YAML file with the same settings (keys are the flag names); flags override it");
}

std::vector<std::string> splitShortFlagValues(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (i > 0 && arg.size() > 3 && arg[0] == '-' &&
        std::isalpha(static_cast<unsigned char>(arg[1])) && arg[2] == '=') {
      out.push_back(arg.substr(0, 2));
      out.push_back(arg.substr(3));
    } else {
      out.push_back(arg);
    }
  }
  return out;
}

Status applyConfigFile(int argc, char** argv, DaemonOptions& options) {
  std::string path;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "explain") return Status();  // a subcommand: the daemon's config does not apply
    if (arg.rfind("--config=", 0) == 0) path = arg.substr(9);
    if (arg == "--config" && i + 1 < argc) path = argv[i + 1];
  }
  if (path.empty()) return Status();
  std::vector<std::string> known;
  for (const auto& s : settings()) known.push_back(s.name);
  auto values = daemon::readConfigFile(path, known);
  if (!values.ok()) return values.error();
  for (const auto& [key, value] : *values) {
    for (const auto& s : settings()) {
      if (s.name != key) continue;
      if (auto st = s.assign(options, value); !st.ok())
        return Error::format("{}: {}", path, st.error().message);
    }
  }
  return Status();
}

}  // namespace hpa::cmd
