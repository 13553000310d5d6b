// The rules the daemon chooses beside the API server it talks to (GET /version), and what it logs.
#include "daemon/server_rules.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "fakes/fake_api_server.h"
#include "kube/discovery.h"

namespace hpa::daemon {
namespace {

using nlohmann::json;

class ServerRules : public ::testing::Test {
 protected:
  ServerRules() {
    auto api = std::make_unique<testing::FakeApiServer>();
    api_ = api.get();
    kube::RestConfig config;
    config.server = "https://fake";
    client_ = std::make_unique<kube::RestClient>(config, std::move(api), clock_, Logger::discard());
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log_);
    logger_ = Logger("daemon", 0, std::make_shared<spdlog::logger>("test", sink));
  }
  void serveVersion(const std::string& minor, const std::string& gitVersion) {
    api_->serve("/version", json{{"major", "1"}, {"minor", minor}, {"gitVersion", gitVersion}});
  }
  Result<replicacalc::DecisionRules> choose(const controller::DecisionFlagValues& values) {
    auto settings = controller::parseDecisionFlags(values);
    EXPECT_TRUE(settings.ok()) << settings.error().message;
    return decisionRulesBesideServer(*settings, *client_, logger_);
  }

  RealClock clock_;
  testing::FakeApiServer* api_ = nullptr;
  std::unique_ptr<kube::RestClient> client_;
  std::ostringstream log_;
  Logger logger_ = Logger::discard();
};

TEST_F(ServerRules, AutoTakesTheServersReleaseAndSaysSo) {
  serveVersion("20+", "v1.20.2-eks-a737599");
  auto rules = choose({});
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  EXPECT_EQ(*rules, replicacalc::decisionRulesOf(20));
  EXPECT_NE(
      log_.str().find("decision rules: kube-controller-manager 1.20's, the API server's release "
                      "(v1.20.2-eks-a737599)"),
      std::string::npos)
      << log_.str();
  EXPECT_EQ(log_.str().find("but the API server runs"), std::string::npos)
      << "no warning: " << log_.str();
}

TEST_F(ServerRules, ReleasesOutsideTheKnownOnesTakeTheNearest) {
  serveVersion("16", "v1.16.15");
  EXPECT_EQ(choose({})->minor, 18);
  EXPECT_NE(log_.str().find("the oldest known; the API server's release is older (v1.16.15)"),
            std::string::npos)
      << log_.str();
  serveVersion("40", "v1.40.0");
  EXPECT_EQ(choose({})->minor, 37);
}

TEST_F(ServerRules, AReleaseGivenDecidesAndOneUnlikeTheServersIsWarnedOfOnce) {
  serveVersion("30", "v1.30.4");
  controller::DecisionFlagValues values;
  values.decisionRules = "1.29";
  auto rules = choose(values);
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(rules->minor, 29);
  const std::string log = log_.str();
  const auto warning = log.find("--decision-rules=1.29 but the API server runs v1.30.4");
  ASSERT_NE(warning, std::string::npos) << log;
  EXPECT_EQ(log.find("--decision-rules=1.29 but", warning + 1), std::string::npos) << "once";
}

TEST_F(ServerRules, WithoutTheServersReleaseOnlyAGivenReleaseCanDecide) {
  auto unreadable = choose({});
  ASSERT_FALSE(unreadable.ok());
  EXPECT_NE(unreadable.error().message.find(
                "--decision-rules=auto needs the API server's release: cannot read the "
                "API server's version (GET /version)"),
            std::string::npos)
      << unreadable.error().message;
  controller::DecisionFlagValues values;
  values.decisionRules = "1.25";
  auto given = choose(values);
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(given->minor, 25);
}

TEST_F(ServerRules, GatesApplyToTheServersReleaseAndALockedOneRefusesOff) {
  serveVersion("34", "v1.34.1");
  controller::DecisionFlagValues values;
  values.featureGates = "HPAConfigurableTolerance=true,MadeUpGate=true";
  auto rules = choose(values);
  ASSERT_TRUE(rules.ok());
  EXPECT_TRUE(rules->gates.hpaConfigurableTolerance);
  EXPECT_NE(log_.str().find("feature gate MadeUpGate: no HPA decision depends on it; ignored"),
            std::string::npos);

  serveVersion("37", "v1.37.0");
  values.featureGates = "HPAConfigurableTolerance=false";
  auto locked = choose(values);
  ASSERT_FALSE(locked.ok());
  EXPECT_EQ(locked.error().message,
            "--feature-gates: feature gate HPAConfigurableTolerance is GA in "
            "kube-controller-manager 1.37 and locked to true; it cannot be set to false");
}

TEST(ServerVersion, MinorReleaseFromEitherField) {
  EXPECT_EQ((kube::ServerVersion{"1", "20", "v1.20.2"}.minorRelease()), 20);
  EXPECT_EQ((kube::ServerVersion{"1", "27+", "v1.27.3-gke.100"}.minorRelease()), 27);
  EXPECT_EQ((kube::ServerVersion{"", "", "v1.31.0-k3s1"}.minorRelease()), 31);
  EXPECT_EQ((kube::ServerVersion{"2", "0", "v2.0.0"}.minorRelease()), std::nullopt);
  EXPECT_EQ((kube::ServerVersion{"", "", ""}.minorRelease()), std::nullopt);
}

}  // namespace
}  // namespace hpa::daemon
