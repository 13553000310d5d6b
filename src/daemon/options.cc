#include "daemon/options.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/quote.h"
#include "common/yaml_json.h"
#include "kube/kubeconfig.h"
#include "serving/request_auth.h"

namespace hpa::daemon {

namespace {

// The flags that take a Go duration.
Status parseDurations(const DaemonOptions& o, ValidatedOptions& v) {
  struct DurationFlag {
    const char* name;
    const std::string& text;
    Duration* out;
    bool allowZero;
  };
  for (const DurationFlag& d : {
           DurationFlag{"horizontal-pod-autoscaler-sync-period", o.syncPeriod, &v.syncPeriod,
                        false},
           DurationFlag{"leader-elect-lease-duration", o.leaseDuration, &v.leaseDuration, false},
           DurationFlag{"leader-elect-renew-deadline", o.renewDeadline, &v.renewDeadline, false},
           DurationFlag{"leader-elect-retry-period", o.retryPeriod, &v.retryPeriod, false},
           DurationFlag{"authentication-token-webhook-cache-ttl", o.tokenCacheTtl, &v.tokenCacheTtl,
                        true},
           DurationFlag{"authorization-webhook-cache-authorized-ttl", o.authorizedCacheTtl,
                        &v.authorizedCacheTtl, true},
           DurationFlag{"authorization-webhook-cache-unauthorized-ttl", o.unauthorizedCacheTtl,
                        &v.unauthorizedCacheTtl, true},
           DurationFlag{"forecast-history-refresh", o.forecastHistoryRefresh,
                        &v.forecastHistoryRefresh, false},
       }) {
    auto parsed = parseGoDuration(d.text);
    if (!parsed.ok())
      return Error::format("invalid value {} for --{}: {}", quote(d.text), d.name,
                           parsed.error().message);
    if (parsed->count() < 0 || (!d.allowZero && parsed->count() == 0)) {
      return Error::format("invalid value {} for --{}: must be {}", quote(d.text), d.name,
                           d.allowZero ? "zero or positive" : "positive");
    }
    *d.out = *parsed;
  }
  return Status();
}

// The numeric flags of the controller and its clients.
Status checkNumbers(const DaemonOptions& o) {
  if (o.concurrentSyncs < 1) {
    return Error::format(
        "concurrent-horizontal-pod-autoscaler-syncs must be greater than 0, but got {}",
        o.concurrentSyncs);
  }
  if (!(o.kubeApiQps > 0))
    return Error::format("invalid value {} for --kube-api-qps: must be positive", o.kubeApiQps);
  if (o.kubeApiBurst < 1)
    return Error::format("invalid value {} for --kube-api-burst: must be at least 1",
                         o.kubeApiBurst);
  return Status();
}

// The serving flags: ports, the certificate pair, the paths that need no authorization.
Status checkServing(const DaemonOptions& o, ValidatedOptions& v) {
  if (o.port < 0 || o.port > 65535)
    return Error::format("invalid value {} for --port: not a TCP port", o.port);
  if (o.securePort < 0 || o.securePort > 65535) {
    return Error::format("invalid value {} for --secure-port: not a TCP port", o.securePort);
  }
  if (o.tlsCertFile.empty() != o.tlsPrivateKeyFile.empty()) {
    return Error::of("--tls-cert-file and --tls-private-key-file must be given together");
  }
  auto paths = serving::parseAlwaysAllowPaths(o.alwaysAllowPaths);
  if (!paths.ok())
    return Error::format("invalid value for --authorization-always-allow-paths: {}",
                         paths.error().message);
  v.alwaysAllowPaths = *paths;
  std::string_view rest = o.metricSourceServiceNamespaces;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view ns = rest.substr(0, comma);
    if (!ns.empty()) v.metricSourceServiceNamespaces.emplace_back(ns);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return Status();
}

// The forecast's history source: an http(s) URL, and credentials only with one.
Status checkForecastSource(const DaemonOptions& o, ValidatedOptions& v) {
  std::string url = o.forecastPrometheusUrl;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.empty()) {
    if (!o.forecastPrometheusBearerTokenFile.empty() || !o.forecastPrometheusCaFile.empty() ||
        o.forecastPrometheusInsecureSkipTlsVerify) {
      return Error::of(
          "--forecast-prometheus-bearer-token-file, --forecast-prometheus-ca-file and "
          "--forecast-prometheus-insecure-skip-tls-verify need --forecast-prometheus-url");
    }
    return Status();
  }
  const bool http = url.rfind("http://", 0) == 0;
  const bool https = url.rfind("https://", 0) == 0;
  const std::size_t scheme = http ? 7 : 8;
  if ((!http && !https) || url.size() == scheme || url[scheme] == '/' ||
      url.find_first_of("?#") != std::string::npos) {
    return Error::format(
        "invalid value {} for --forecast-prometheus-url: expected http(s)://host[:port][/path]",
        quote(o.forecastPrometheusUrl));
  }
  v.forecastPrometheusUrl = url;
  return Status();
}

// Leader election's timings, as client-go's leaderelection checks them, and the Lease's name.
Status checkLeaderElection(const DaemonOptions& o, const ValidatedOptions& v) {
  if (!o.leaderElect) return Status();
  if (v.leaseDuration <= v.renewDeadline) {
    return Error::format("leaseDuration must be greater than renewDeadline ({} <= {})",
                         o.leaseDuration, o.renewDeadline);
  }
  if (v.renewDeadline <= v.retryPeriod) {
    return Error::format("renewDeadline must be greater than retryPeriod ({} <= {})",
                         o.renewDeadline, o.retryPeriod);
  }
  if (o.leaseName.empty() || o.leaseNamespace.empty()) {
    return Error::of(
        "--leader-elect-resource-name and --leader-elect-resource-namespace must not be empty");
  }
  return Status();
}

}  // namespace

Result<ValidatedOptions> validate(const DaemonOptions& o) {
  ValidatedOptions v;
  v.raw = o;
  if (auto durations = parseDurations(o, v); !durations.ok()) return durations.error();
  auto decision = controller::parseDecisionFlags(o.decision);
  if (!decision.ok()) return decision.error();
  v.decision = *decision;
  auto rules = controller::chooseDecisionRules(v.decision, std::nullopt);
  if (!rules.ok()) return rules.error();
  v.rules = rules->rules;
  if (auto numbers = checkNumbers(o); !numbers.ok()) return numbers.error();
  if (auto serving = checkServing(o, v); !serving.ok()) return serving.error();
  if (o.verbosity < 0)
    return Error::format("invalid value {} for -v: must not be negative", o.verbosity);
  if (auto election = checkLeaderElection(o, v); !election.ok()) return election.error();
  if (auto forecast = checkForecastSource(o, v); !forecast.ok()) return forecast.error();
  v.leaseName =
      o.shadow && o.leaseName == DaemonOptions{}.leaseName ? o.leaseName + "-shadow" : o.leaseName;
  return v;
}

Result<std::map<std::string, std::string>> readConfigFile(
    const std::string& path, const std::vector<std::string>& knownKeys) {
  auto text = kube::readTextFile(path);
  if (!text.ok()) return Error::format("--config: {}", text.error().message);
  auto docs = yamlDocumentsToJson(*text);
  if (!docs.ok()) return Error::format("{}: {}", path, docs.error().message);
  std::map<std::string, std::string> out;
  if (docs->empty()) return out;
  if (docs->size() > 1 || !docs->front().is_object())
    return Error::format("{}: expected one mapping of settings", path);
  for (const auto& [key, value] : docs->front().items()) {
    if (std::find(knownKeys.begin(), knownKeys.end(), key) == knownKeys.end()) {
      return Error::format("{}: {}: unknown setting", path, key);
    }
    if (value.is_string()) {
      out[key] = value.get<std::string>();
    } else if (value.is_boolean()) {
      out[key] = value.get<bool>() ? "true" : "false";
    } else if (value.is_number_integer()) {
      out[key] = std::to_string(value.get<long long>());
    } else if (value.is_number()) {
      out[key] = value.dump();
    } else {
      return Error::format("{}: {}: must be a scalar", path, key);
    }
  }
  return out;
}

}  // namespace hpa::daemon
