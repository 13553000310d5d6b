// Every live writer reports each write request's outcome, and only real requests: a write the
// writer decides not to send reports nothing.

#include <gtest/gtest.h>

#include <array>
#include <atomic>

#include "adapters/api_clients.h"
#include "adapters/api_event_recorder.h"
#include "adapters/decision_publisher.h"
#include "adapters/history_persister.h"
#include "api/codec.h"
#include "fakes/eventually.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_transport.h"

namespace hpa::adapters {
namespace {

using controller::WriteKind;
using hpa::testing::eventually;
using std::chrono::seconds;

constexpr const char* kHpaPath =
    "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/web";
constexpr const char* kScalePath = "/apis/apps/v1/namespaces/shop/deployments/web/scale";

// Counts what it is told, by kind and outcome. Thread-safe.
class CountingWriteObserver final : public controller::WriteObserver {
 public:
  void writeAttempted(WriteKind kind, bool succeeded) override {
    ++counts_[static_cast<std::size_t>(kind)][succeeded ? 1 : 0];
  }
  int succeeded(WriteKind kind) const { return counts_[static_cast<std::size_t>(kind)][1]; }
  int failed(WriteKind kind) const { return counts_[static_cast<std::size_t>(kind)][0]; }
  int total() const {
    int sum = 0;
    for (const auto& kind : counts_) sum += kind[0] + kind[1];
    return sum;
  }

 private:
  std::array<std::array<std::atomic<int>, 2>, controller::kWriteKindCount> counts_{};
};

api::HorizontalPodAutoscaler hpa() {
  api::HorizontalPodAutoscaler h;
  h.apiVersion = "autoscaling/v2";
  h.metadata.name = "web";
  h.metadata.namespace_ = "shop";
  h.metadata.uid = "uid-1";
  h.spec.scaleTargetRef = {"Deployment", "web", "apps/v1"};
  h.spec.maxReplicas = 5;
  return h;
}

class WriteCountsTest : public ::testing::Test {
 protected:
  WriteCountsTest() : rest_(hpa::testing::fakeRestClient(transport_, clock_)) {}

  hpa::testing::FakeClock clock_;
  hpa::testing::FakeTransport* transport_ = nullptr;
  std::unique_ptr<kube::RestClient> rest_;
  CountingWriteObserver writes_;
};

TEST_F(WriteCountsTest, StatusPatchesCountTheirOutcome) {
  ApiStatusWriter writer(*rest_, "autoscaling/v2", nullptr, &writes_);
  EXPECT_FALSE(writer.updateStatus(hpa()).ok()) << "unrouted: 404";
  EXPECT_EQ(writes_.failed(WriteKind::Status), 1);
  transport_->json("PATCH", std::string(kHpaPath) + "/status",
                   api::encodeHorizontalPodAutoscaler(hpa(), "autoscaling/v2"));
  EXPECT_TRUE(writer.updateStatus(hpa()).ok());
  EXPECT_EQ(writes_.succeeded(WriteKind::Status), 1);
  EXPECT_EQ(writes_.total(), 2);
}

TEST_F(WriteCountsTest, ScaleUpdatesCountTheirOutcome) {
  kube::Discovery discovery(*rest_);
  ApiScaleClient scales(*rest_, discovery, &writes_);
  api::Scale scale;
  scale.metadata.name = "web";
  scale.metadata.namespace_ = "shop";
  scale.specReplicas = 4;
  const controller::GroupVersionResource deployments{"apps", "v1", "deployments"};
  EXPECT_FALSE(scales.updateScale("shop", deployments, scale).ok());
  transport_->json("PUT", kScalePath, api::encodeScale(scale));
  EXPECT_TRUE(scales.updateScale("shop", deployments, scale).ok());
  EXPECT_EQ(writes_.failed(WriteKind::Scale), 1);
  EXPECT_EQ(writes_.succeeded(WriteKind::Scale), 1);
  EXPECT_EQ(writes_.total(), 2);
}

TEST_F(WriteCountsTest, AnnotationPatchesCountOnlyWhenSent) {
  ApiHistoryPersister history(*rest_, "autoscaling/v2", Logger::discard(), &writes_);
  api::AutoscalerHistory h;
  h.recommendations.push_back({2, clock_.now()});
  history.persist(hpa(), h);  // first sight of the HPA: nothing a restart would need
  EXPECT_EQ(writes_.total(), 0);
  h.recommendations.push_back({5, clock_.now() + seconds(15)});
  history.persist(hpa(), h);
  EXPECT_EQ(writes_.failed(WriteKind::History), 1);

  transport_->json("PATCH", kHpaPath, api::encodeHorizontalPodAutoscaler(hpa(), "autoscaling/v2"));
  ApiDecisionPublisher decisions(*rest_, "autoscaling/v2", Logger::discard(), &writes_);
  controls::LastDecision decision;
  decision.currentReplicas = 2;
  decision.desiredReplicas = 3;
  decisions.publish(hpa(), decision, clock_.now());
  decisions.publish(hpa(), decision, clock_.now());  // unchanged: not sent
  EXPECT_EQ(writes_.succeeded(WriteKind::LastDecision), 1);
  EXPECT_EQ(writes_.total(), 2);
}

TEST_F(WriteCountsTest, EventCreatesAndPatchesCountTheirOutcome) {
  const std::string eventsPath = "/api/v1/namespaces/shop/events";
  transport_->route("POST", eventsPath, [this, eventsPath](const kube::HttpRequest& r) {
    const std::string name = nlohmann::json::parse(r.body)["metadata"]["name"].get<std::string>();
    transport_->json("PATCH", eventsPath + "/" + name, nlohmann::json::object());
    return kube::HttpResponse{201, {}, r.body};
  });
  ApiEventRecorder recorder(*rest_, clock_, Logger::discard(), &writes_);
  recorder.event(hpa(), "Normal", "SuccessfulRescale", "New size: 4");
  ASSERT_TRUE(eventually([&] { return writes_.succeeded(WriteKind::Event) == 1; })) << "the create";
  recorder.event(hpa(), "Normal", "SuccessfulRescale", "New size: 4");
  ASSERT_TRUE(eventually([&] { return writes_.succeeded(WriteKind::Event) == 2; }))
      << "the repeat's patch";
  recorder.stop();
  EXPECT_EQ(transport_->count("POST", eventsPath), 1);
  EXPECT_EQ(writes_.total(), 2);
}

}  // namespace
}  // namespace hpa::adapters
