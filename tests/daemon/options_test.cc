#include "daemon/options.h"

#include <gtest/gtest.h>

#include <fstream>

namespace hpa::daemon {
namespace {

TEST(DaemonOptions, DefaultsMirrorKubeControllerManager) {
  auto v = validate(DaemonOptions{});
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->syncPeriod, std::chrono::seconds(15));
  EXPECT_EQ(v->decision.downscaleStabilization, std::chrono::minutes(5));
  EXPECT_EQ(v->decision.cpuInitializationPeriod, std::chrono::minutes(5));
  EXPECT_EQ(v->decision.initialReadinessDelay, std::chrono::seconds(30));
  EXPECT_DOUBLE_EQ(v->decision.tolerance, 0.1);
  EXPECT_EQ(v->decision.rulesMinor, std::nullopt)
      << "auto: the API server's release, chosen at start";
  EXPECT_EQ(v->raw.concurrentSyncs, 5);
  EXPECT_DOUBLE_EQ(v->raw.kubeApiQps, 20);
  EXPECT_EQ(v->raw.kubeApiBurst, 30);
  EXPECT_EQ(v->leaseDuration, std::chrono::seconds(15));
  EXPECT_EQ(v->renewDeadline, std::chrono::seconds(10));
  EXPECT_EQ(v->retryPeriod, std::chrono::seconds(2));
}

TEST(DaemonOptions, ServingDefaults) {
  auto v = validate(DaemonOptions{});
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->raw.securePort, 10258);  // the port, next to kube-controller-manager's 10257
  EXPECT_EQ(v->raw.bindAddress, "0.0.0.0");
  EXPECT_EQ(v->raw.port, 0);  // no plain HTTP unless asked for
  EXPECT_EQ(v->alwaysAllowPaths, (std::vector<std::string>{"/healthz", "/readyz", "/livez"}));
  EXPECT_EQ(v->tokenCacheTtl, std::chrono::seconds(10));
  EXPECT_EQ(v->authorizedCacheTtl, std::chrono::seconds(10));
  EXPECT_EQ(v->unauthorizedCacheTtl, std::chrono::seconds(10));
}

TEST(DaemonOptions, AShadowTakesALeaseOfItsOwnUnlessNamedOne) {
  DaemonOptions o;
  EXPECT_EQ(validate(o)->leaseName, "hpa-controller");
  o.shadow = true;
  EXPECT_EQ(validate(o)->leaseName, "hpa-controller-shadow");
  o.leaseName = "my-shadow";
  EXPECT_EQ(validate(o)->leaseName, "my-shadow");
}

TEST(DaemonOptions, RejectsInvalidValuesWithOneMessage) {
  struct Case {
    void (*mutate)(DaemonOptions&);
    const char* message;
  };
  for (const auto& c : {
           Case{[](DaemonOptions& o) { o.syncPeriod = "0s"; },
                "invalid value \"0s\" for --horizontal-pod-autoscaler-sync-period: must be "
                "positive"},
           Case{[](DaemonOptions& o) { o.decision.downscaleStabilization = "5 minutes"; },
                "--horizontal-pod-autoscaler-downscale-stabilization"},
           Case{[](DaemonOptions& o) { o.concurrentSyncs = 0; },
                "concurrent-horizontal-pod-autoscaler-syncs must be greater than 0, but got 0"},
           Case{[](DaemonOptions& o) { o.decision.tolerance = "-0.5"; },
                "--horizontal-pod-autoscaler-tolerance"},
           Case{[](DaemonOptions& o) { o.renewDeadline = "20s"; },
                "leaseDuration must be greater than renewDeadline"},
           Case{[](DaemonOptions& o) { o.retryPeriod = "10s"; },
                "renewDeadline must be greater than retryPeriod"},
           Case{[](DaemonOptions& o) { o.kubeApiBurst = 0; }, "--kube-api-burst"},
           Case{[](DaemonOptions& o) { o.securePort = 70000; },
                "invalid value 70000 for --secure-port"},
           Case{[](DaemonOptions& o) { o.tlsCertFile = "tls.crt"; },
                "--tls-cert-file and --tls-private-key-file must be given together"},
           Case{[](DaemonOptions& o) { o.alwaysAllowPaths = "healthz"; },
                "--authorization-always-allow-paths"},
           Case{[](DaemonOptions& o) { o.tokenCacheTtl = "-1s"; },
                "--authentication-token-webhook-cache-ttl"},
           Case{[](DaemonOptions& o) { o.decision.decisionRules = "1.2"; },
                "for --decision-rules: must be auto, current or a kube-controller-manager release "
                "from 1.18 to 1.37 "
                "(in a YAML file, quote the release: \"1.20\")"},
       }) {
    DaemonOptions o;
    c.mutate(o);
    auto v = validate(o);
    ASSERT_FALSE(v.ok()) << c.message;
    EXPECT_NE(v.error().message.find(c.message), std::string::npos) << v.error().message;
  }
  DaemonOptions zeroTolerance;
  zeroTolerance.decision.tolerance = "0";  // explicitly zero is honored, as upstream
  EXPECT_TRUE(validate(zeroTolerance).ok());
}

TEST(DaemonOptions, ForecastHistorySource) {
  auto none = validate(DaemonOptions{});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->forecastPrometheusUrl, "") << "no source unless one is named";
  EXPECT_EQ(none->forecastHistoryRefresh, std::chrono::minutes(5));

  DaemonOptions o;
  o.forecastPrometheusUrl = "https://prometheus.monitoring:9090/prom/";
  o.forecastHistoryRefresh = "30s";
  o.forecastPrometheusCaFile = "/etc/prometheus/ca.crt";
  auto v = validate(o);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->forecastPrometheusUrl, "https://prometheus.monitoring:9090/prom");
  EXPECT_EQ(v->forecastHistoryRefresh, std::chrono::seconds(30));

  for (const char* bad :
       {"prometheus:9090", "ftp://prom", "http://", "http:///x", "http://prom:9090/?x=1"}) {
    o.forecastPrometheusUrl = bad;
    auto refused = validate(o);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.error().message,
              fmt::format("invalid value \"{}\" for --forecast-prometheus-url: expected "
                          "http(s)://host[:port][/path]",
                          bad));
  }
  o.forecastPrometheusUrl = "http://prom:9090";
  o.forecastHistoryRefresh = "0s";
  EXPECT_EQ(validate(o).error().message,
            "invalid value \"0s\" for --forecast-history-refresh: must be positive");

  DaemonOptions credentialsAlone;
  credentialsAlone.forecastPrometheusBearerTokenFile = "/var/run/token";
  EXPECT_EQ(validate(credentialsAlone).error().message,
            "--forecast-prometheus-bearer-token-file, --forecast-prometheus-ca-file and "
            "--forecast-prometheus-insecure-skip-tls-verify need --forecast-prometheus-url");
}

// Fuzz finding (config_file_fuzz): "horizontal-pod-autoscaler-sync-period: \xdf" aborted while
// quoting the value in the error (fmt's "{:?}" on invalid UTF-8); it is quoted as Go's %q now.
TEST(DaemonOptions, InvalidUtf8InAValueIsQuotedInTheError) {
  DaemonOptions o;
  o.syncPeriod = "\xdf";
  auto v = validate(o);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message,
            "invalid value \"\\xdf\" for --horizontal-pod-autoscaler-sync-period: time: invalid "
            "duration \"\\xdf\"");
}

TEST(DaemonOptions, ConfigFile) {
  const std::string path = ::testing::TempDir() + "/hpa-config.yaml";
  std::ofstream(path) << "horizontal-pod-autoscaler-sync-period: 30s\nleader-elect: false\nv: 3\n";
  auto values =
      readConfigFile(path, {"horizontal-pod-autoscaler-sync-period", "leader-elect", "v"});
  ASSERT_TRUE(values.ok()) << values.error().message;
  EXPECT_EQ(values->at("horizontal-pod-autoscaler-sync-period"), "30s");
  EXPECT_EQ(values->at("leader-elect"), "false");
  EXPECT_EQ(values->at("v"), "3");
  auto unknown = readConfigFile(path, {"v"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown setting"), std::string::npos);
  std::ofstream(path) << "v: [1, 2]\n";
  EXPECT_FALSE(readConfigFile(path, {"v"}).ok());
  EXPECT_FALSE(readConfigFile(path + ".missing", {"v"}).ok());
}

}  // namespace
}  // namespace hpa::daemon
