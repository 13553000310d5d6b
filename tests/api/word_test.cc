// A pod's phase and its Ready condition's status, one byte each in the cache.

#include "api/word.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/pod.h"

namespace hpa::api {
namespace {

TEST(Word, KnownWordsReadBackAndOthersReadAsUnknown) {
  EXPECT_EQ(PodPhase().text(), "");
  EXPECT_TRUE(PodPhase().empty());
  for (const char* phase : {"Pending", "Running", "Succeeded", "Failed", "Unknown"}) {
    EXPECT_EQ(PodPhase(phase).text(), phase);
    EXPECT_EQ(PodPhase(phase), phase);
  }
  EXPECT_EQ(PodPhase("running").text(), "Unknown");  // the API's words are case-sensitive
  EXPECT_NE(PodPhase("running"), kPodRunning);
  EXPECT_EQ(ConditionStatus().text(), "Unknown");
  EXPECT_EQ(ConditionStatus("True"), "True");
  EXPECT_EQ(ConditionStatus("False"), "False");
  EXPECT_EQ(ConditionStatus("yes").text(), "Unknown");
  EXPECT_NE(ConditionStatus("yes"), "True");
  EXPECT_NE(ConditionStatus("yes"), "False");
  EXPECT_EQ(sizeof(PodPhase), 1u);
  EXPECT_EQ(sizeof(ConditionStatus), 1u);
}

TEST(Word, APodWithAPhaseAndStatusOutsideTheApisWordsDecodesAsUnknown) {
  auto pod = decodePod(nlohmann::json::parse(R"({
    "metadata": {"name": "web-1", "namespace": "shop"},
    "status": {"phase": "Hibernating", "conditions": [{"type": "Ready", "status": "Maybe"}]}})"));
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pod->phase, "Unknown");
  ASSERT_TRUE(pod->ready);
  EXPECT_EQ(pod->ready->status, "Unknown");
  auto encoded = encodePod(*pod);
  EXPECT_EQ(encoded["status"]["phase"], "Unknown");
  EXPECT_EQ(encoded["status"]["conditions"][0]["status"], "Unknown");
}

}  // namespace
}  // namespace hpa::api
