#include "telemetry/shadow_metrics.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

namespace hpa::telemetry {
namespace {

std::string scrape(const prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

bool has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

std::string comparisons(const std::string& name, const std::string& result,
                        const std::string& cause, int value) {
  return "hpa_controller_shadow_comparisons_total{cause=\"" + cause + "\",name=\"" + name +
         "\",namespace=\"shop\",result=\"" + result + "\"} " + std::to_string(value);
}

TEST(ShadowMetrics, AnHpasComparisonsExistAtZeroOnceItIsKnownAndGoWithIt) {
  prometheus::Registry registry;
  ShadowMetrics metrics(registry);
  metrics.hpaKnown("shop", "web");
  std::string text = scrape(registry);
  EXPECT_TRUE(has(text, comparisons("web", "agree", "agree", 0))) << text;
  for (const char* cause : {"inputs", "history", "warmup", "rules"}) {
    EXPECT_TRUE(has(text, comparisons("web", "diverge", cause, 0))) << cause << "\n" << text;
  }

  const shadow::Divergence replicas{shadow::DivergenceKind::DesiredReplicas, "4", "3"};
  metrics.compared("shop", "web", shadow::Cause::Inputs, {replicas});
  metrics.hpaKnown("shop",
                   "web");  // a second add (a relist after a delete missed) keeps the counts
  text = scrape(registry);
  EXPECT_TRUE(has(text, comparisons("web", "diverge", "inputs", 1))) << text;
  EXPECT_TRUE(has(text, comparisons("web", "agree", "agree", 0))) << text;

  metrics.hpaForgotten("shop", "web");
  EXPECT_EQ(scrape(registry).find("name=\"web\""), std::string::npos);
}

}  // namespace
}  // namespace hpa::telemetry
