#include "telemetry/prometheus_observer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace hpa::telemetry {
namespace {

TEST(PrometheusObserver, CountsReconcilesPerHpaAndDropsADeletedHpasSeries) {
  PrometheusObserver observer;
  observer.hpaReconciled("ns", "fast");
  observer.hpaReconciled("ns", "fast");
  observer.hpaReconciled("ns", "slow");
  std::string text = observer.serialize();
  EXPECT_NE(text.find("hpa_controller_reconciles_total{name=\"fast\",namespace=\"ns\"} 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("hpa_controller_reconciles_total{name=\"slow\",namespace=\"ns\"} 1"),
            std::string::npos)
      << text;
  observer.hpaDeleted("ns", "fast");
  observer.hpaDeleted("ns", "never-seen");
  text = observer.serialize();
  EXPECT_EQ(text.find("name=\"fast\""), std::string::npos) << text;
  EXPECT_NE(text.find("name=\"slow\""), std::string::npos) << text;
}

TEST(PrometheusObserver, ADeletedHpasDecisionSeriesGoWithItAndLeadershipIsShown) {
  PrometheusObserver observer;
  report::DecisionOutcome outcome;
  outcome.currentReplicas = 2;
  outcome.desiredReplicas = 3;
  observer.hpaDecided("ns", "web", outcome);
  observer.leading(true);
  std::string text = observer.serialize();
  EXPECT_NE(text.find("hpa_controller_desired_replicas{name=\"web\",namespace=\"ns\"} 3"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("hpa_controller_leader 1"), std::string::npos) << text;
  observer.hpaDeleted("ns", "web");
  observer.leading(false);
  text = observer.serialize();
  EXPECT_EQ(text.find("name=\"web\""), std::string::npos) << text;
  EXPECT_NE(text.find("hpa_controller_leader 0"), std::string::npos) << text;
}

TEST(PrometheusObserver, InformerCacheDigestIsExactUpTo32Bits) {
  PrometheusObserver observer;
  observer.informerCache("pods", 1000, 4294967295u);
  const std::string text = observer.serialize();
  EXPECT_NE(text.find("hpa_controller_informer_cache_objects{resource=\"pods\"} 1000"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("hpa_controller_informer_cache_digest{resource=\"pods\"} 4294967295"),
            std::string::npos)
      << text;
}

bool hasLine(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(PrometheusObserver, EveryWriteSeriesExistsAtZeroFromTheStartAndCountsItsOutcome) {
  PrometheusObserver observer;
  std::string text = observer.serialize();
  for (const char* write : {"scale", "status", "history", "last-decision", "event"}) {
    for (const char* result : {"success", "failure"}) {
      EXPECT_TRUE(
          hasLine(text, fmt::format("hpa_controller_writes_total{{result=\"{}\",write=\"{}\"}} 0",
                                    result, write)))
          << write << " " << result << "\n"
          << text;
    }
  }
  observer.writes().writeAttempted(controller::WriteKind::Status, false);
  observer.writes().writeAttempted(controller::WriteKind::LastDecision, true);
  observer.writes().writeAttempted(controller::WriteKind::LastDecision, true);
  text = observer.serialize();
  EXPECT_TRUE(hasLine(text, R"(hpa_controller_writes_total{result="failure",write="status"} 1)"))
      << text;
  EXPECT_TRUE(hasLine(text, R"(hpa_controller_writes_total{result="success",write="status"} 0)"))
      << text;
  EXPECT_TRUE(
      hasLine(text, R"(hpa_controller_writes_total{result="success",write="last-decision"} 2)"))
      << text;
}

TEST(PrometheusObserver, ShowsTheRunLoopStallAndTheLeaseTransitionsOnceSeen) {
  PrometheusObserver observer;
  std::string text = observer.serialize();
  EXPECT_TRUE(hasLine(text, "hpa_controller_run_loop_stalled_seconds 0")) << text;
  EXPECT_EQ(text.find("\nhpa_controller_leader_transitions "), std::string::npos)
      << "absent until seen\n"
      << text;
  observer.leaderTransitions(std::nullopt);
  EXPECT_EQ(observer.serialize().find("\nhpa_controller_leader_transitions "), std::string::npos);

  observer.runLoopStalled(std::chrono::milliseconds(150500));
  observer.leaderTransitions(3);
  text = observer.serialize();
  EXPECT_TRUE(hasLine(text, "hpa_controller_run_loop_stalled_seconds 150.5")) << text;
  EXPECT_TRUE(hasLine(text, "hpa_controller_leader_transitions 3")) << text;
}

}  // namespace
}  // namespace hpa::telemetry
