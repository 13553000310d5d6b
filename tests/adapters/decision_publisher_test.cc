#include "adapters/decision_publisher.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_transport.h"

namespace hpa::adapters {
namespace {

using controls::kLastDecisionAnnotation;
using nlohmann::json;

constexpr const char* kHpaPath =
    "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/web";

api::HorizontalPodAutoscaler hpa() {
  api::HorizontalPodAutoscaler h;
  h.metadata.name = "web";
  h.metadata.namespace_ = "shop";
  return h;
}

controls::LastDecision decision(int desired) {
  controls::LastDecision d;
  d.branch = "metrics";
  d.currentReplicas = 2;
  d.desiredReplicas = desired;
  return d;
}

Time at(const char* rfc3339) { return *parseRFC3339(rfc3339); }

class DecisionPublisherTest : public ::testing::Test {
 protected:
  DecisionPublisherTest() : rest_(hpa::testing::fakeRestClient(transport_, clock_)) {
    transport_->json("PATCH", kHpaPath,
                     api::encodeHorizontalPodAutoscaler(hpa(), "autoscaling/v2"));
  }
  int patches() const { return transport_->count("PATCH", kHpaPath); }
  json lastPatch() const { return json::parse(transport_->requests().back().body); }

  hpa::testing::FakeClock clock_;
  hpa::testing::FakeTransport* transport_ = nullptr;
  std::unique_ptr<kube::RestClient> rest_;
  ApiDecisionPublisher publisher_{*rest_, "autoscaling/v2", Logger::discard()};
};

TEST_F(DecisionPublisherTest, WritesOnlyWhenTheDecisionChanges) {
  publisher_.publish(hpa(), decision(4), at("2026-11-26T10:00:00Z"));
  ASSERT_EQ(patches(), 1);
  json written = json::parse(
      lastPatch()["metadata"]["annotations"][kLastDecisionAnnotation].get<std::string>());
  EXPECT_EQ(written, (json{{"time", "2026-11-26T10:00:00Z"},
                           {"branch", "metrics"},
                           {"currentReplicas", 2},
                           {"desiredReplicas", 4}}));
  // The same decision later: no write, though the cache does not show ours yet.
  for (int i = 1; i < 20; ++i) publisher_.publish(hpa(), decision(4), at("2026-11-26T10:05:00Z"));
  EXPECT_EQ(patches(), 1);
  publisher_.publish(hpa(), decision(6), at("2026-11-26T10:06:00Z"));
  EXPECT_EQ(patches(), 2);
}

TEST_F(DecisionPublisherTest, StartsFromTheStoredAnnotationAfterARestart) {
  auto stored = hpa();
  stored.metadata.annotations[kLastDecisionAnnotation] =
      controls::lastDecisionJson(decision(4), at("2026-11-26T09:00:00Z")).dump();
  publisher_.publish(stored, decision(4), at("2026-11-26T10:00:00Z"));
  EXPECT_EQ(patches(), 0);
  publisher_.publish(stored, decision(5), at("2026-11-26T10:00:15Z"));
  EXPECT_EQ(patches(), 1);
}

TEST_F(DecisionPublisherTest, RemovesTheAnnotationOfAnHpaThatStoppedRecording) {
  publisher_.publish(hpa(), std::nullopt,
                     at("2026-11-26T10:00:00Z"));  // nothing stored: nothing to remove
  EXPECT_EQ(patches(), 0);
  auto stored = hpa();
  stored.metadata.annotations[kLastDecisionAnnotation] =
      controls::lastDecisionJson(decision(4), at("2026-11-26T09:00:00Z")).dump();
  publisher_.publish(stored, std::nullopt, at("2026-11-26T10:00:00Z"));
  ASSERT_EQ(patches(), 1);
  EXPECT_TRUE(lastPatch()["metadata"]["annotations"][kLastDecisionAnnotation].is_null());
}

TEST_F(DecisionPublisherTest, AFailedWriteIsTriedAgainNextTime) {
  transport_->json("PATCH", kHpaPath,
                   json{{"kind", "Status"}, {"code", 500}, {"message", "etcd down"}}, 500);
  publisher_.publish(hpa(), decision(4), at("2026-11-26T10:00:00Z"));
  const int failed = patches();
  EXPECT_GE(failed, 1);
  transport_->json("PATCH", kHpaPath, api::encodeHorizontalPodAutoscaler(hpa(), "autoscaling/v2"));
  publisher_.publish(hpa(), decision(4), at("2026-11-26T10:00:15Z"));
  EXPECT_GT(patches(), failed);
}

}  // namespace
}  // namespace hpa::adapters
