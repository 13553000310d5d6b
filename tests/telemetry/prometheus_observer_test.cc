#include "telemetry/prometheus_observer.h"

#include <gtest/gtest.h>

namespace hpa::telemetry {
namespace {

TEST(PrometheusObserver, CountsReconcilesPerHpaAndDropsADeletedHpasSeries) {
  PrometheusObserver observer;
  observer.hpaReconciled("ns", "fast");
  observer.hpaReconciled("ns", "fast");
  observer.hpaReconciled("ns", "slow");
  std::string text = observer.serialize();
  EXPECT_NE(text.find("hpa_controller_reconciles_total{name=\"fast\",namespace=\"ns\"} 2"), std::string::npos) << text;
  EXPECT_NE(text.find("hpa_controller_reconciles_total{name=\"slow\",namespace=\"ns\"} 1"), std::string::npos) << text;
  observer.hpaDeleted("ns", "fast");
  observer.hpaDeleted("ns", "never-seen");
  text = observer.serialize();
  EXPECT_EQ(text.find("name=\"fast\""), std::string::npos) << text;
  EXPECT_NE(text.find("name=\"slow\""), std::string::npos) << text;
}

TEST(PrometheusObserver, ADeletedHpasDecisionSeriesGoWithItAndLeadershipIsShown) {
  PrometheusObserver observer;
  controller::DecisionOutcome outcome;
  outcome.currentReplicas = 2;
  outcome.desiredReplicas = 3;
  observer.hpaDecided("ns", "web", outcome);
  observer.leading(true);
  std::string text = observer.serialize();
  EXPECT_NE(text.find("hpa_controller_desired_replicas{name=\"web\",namespace=\"ns\"} 3"), std::string::npos) << text;
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
  EXPECT_NE(text.find("hpa_controller_informer_cache_objects{resource=\"pods\"} 1000"), std::string::npos) << text;
  EXPECT_NE(text.find("hpa_controller_informer_cache_digest{resource=\"pods\"} 4294967295"), std::string::npos) << text;
}

}  // namespace
}  // namespace hpa::telemetry
