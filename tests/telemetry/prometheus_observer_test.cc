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

TEST(PrometheusObserver, InformerCacheDigestIsExactUpTo32Bits) {
  PrometheusObserver observer;
  observer.informerCache("pods", 1000, 4294967295u);
  const std::string text = observer.serialize();
  EXPECT_NE(text.find("hpa_controller_informer_cache_objects{resource=\"pods\"} 1000"), std::string::npos) << text;
  EXPECT_NE(text.find("hpa_controller_informer_cache_digest{resource=\"pods\"} 4294967295"), std::string::npos) << text;
}

}  // namespace
}  // namespace hpa::telemetry
