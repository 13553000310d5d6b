#include "adapters/history_persister.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_transport.h"

namespace hpa::adapters {
namespace {

using controller::historyFromAnnotation;
using controller::kHistoryAnnotation;
using controller::restoredAt;
using std::chrono::seconds;

const Time kT0 = Time(seconds(1'800'000'000));
constexpr const char* kHpaPath =
    "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/web";

api::AutoscalerHistory history(
    std::vector<std::pair<int, int>> recommendations) {  // (replicas, seconds after T0)
  api::AutoscalerHistory h;
  for (auto [replicas, at] : recommendations)
    h.recommendations.push_back({replicas, kT0 + seconds(at)});
  return h;
}

api::HorizontalPodAutoscaler hpa() {
  api::HorizontalPodAutoscaler h;
  h.metadata.name = "web";
  h.metadata.namespace_ = "shop";
  return h;
}

TEST(HistoryPersister, WritesOnlyWhatMattersForARestart) {
  hpa::testing::FakeClock clock;
  hpa::testing::FakeTransport* transport = nullptr;
  auto rest = hpa::testing::fakeRestClient(transport, clock);
  transport->json("PATCH", kHpaPath, api::encodeHorizontalPodAutoscaler(hpa(), "autoscaling/v2"));
  ApiHistoryPersister persister(*rest, "autoscaling/v2", Logger::discard());

  persister.persist(hpa(), history({{2, 0}}));  // first sight: seeded from the current replicas
  EXPECT_EQ(transport->count("PATCH", kHpaPath), 0);
  persister.persist(hpa(), history({{2, 0}, {5, 15}}));  // load arrived
  ASSERT_EQ(transport->count("PATCH", kHpaPath), 1);
  for (int i = 2; i < 40; ++i) persister.persist(hpa(), history({{2, 0}, {5, 15 * i}}));  // steady
  EXPECT_EQ(transport->count("PATCH", kHpaPath), 1);
  persister.persist(hpa(), history({{5, 600}, {3, 615}}));  // load dropped
  EXPECT_EQ(transport->count("PATCH", kHpaPath), 2);

  // The patch carries the history in the annotation, as restore reads it.
  auto body = nlohmann::json::parse(transport->requests().back().body);
  api::HorizontalPodAutoscaler annotated = hpa();
  annotated.metadata.annotations[kHistoryAnnotation] =
      body["metadata"]["annotations"][kHistoryAnnotation];
  auto read = historyFromAnnotation(annotated, Logger::discard());
  ASSERT_TRUE(read);
  EXPECT_EQ(read->recommendations, history({{5, 600}, {3, 615}}).recommendations);
}

TEST(HistoryPersister, StartsFromWhatAPreviousRunPersisted) {
  hpa::testing::FakeClock clock;
  hpa::testing::FakeTransport* transport = nullptr;
  auto rest = hpa::testing::fakeRestClient(transport, clock);
  transport->json("PATCH", kHpaPath, api::encodeHorizontalPodAutoscaler(hpa(), "autoscaling/v2"));
  ApiHistoryPersister persister(*rest, "autoscaling/v2", Logger::discard());
  api::HorizontalPodAutoscaler annotated = hpa();
  annotated.metadata.annotations[kHistoryAnnotation] =
      api::encodeAutoscalerHistory(history({{6, 0}, {4, 30}})).dump();
  // After a restart the restored history keeps recommending 4: nothing to write.
  persister.persist(annotated, restoredAt(history({{6, 0}, {4, 30}}), kT0 + seconds(900)));
  persister.persist(annotated, history({{6, 0}, {4, 930}, {4, 945}}));
  EXPECT_EQ(transport->count("PATCH", kHpaPath), 0);
}

TEST(HistoryPersister, FlushWritesWhatAFailedWriteLeftBehind) {
  hpa::testing::FakeClock clock;
  hpa::testing::FakeTransport* transport = nullptr;
  auto rest = hpa::testing::fakeRestClient(transport, clock);
  bool apiUp = false;
  const std::string answer = api::encodeHorizontalPodAutoscaler(hpa(), "autoscaling/v2").dump();
  transport->route("PATCH", kHpaPath, [&](const kube::HttpRequest&) {
    return apiUp ? kube::HttpResponse{200, {}, answer}
                 : kube::HttpResponse{
                       500, {}, R"({"kind":"Status","code":500,"message":"etcd down"})"};
  });
  ApiHistoryPersister persister(*rest, "autoscaling/v2", Logger::discard());

  persister.persist(hpa(), history({{2, 0}, {5, 15}}));  // matters, but the write fails
  const int failedAttempts = transport->count("PATCH", kHpaPath);
  EXPECT_GE(failedAttempts, 1);
  // A leader handing over writes it now...
  apiUp = true;
  EXPECT_EQ(persister.flush(), 1);
  EXPECT_EQ(transport->count("PATCH", kHpaPath), failedAttempts + 1);
  // ...once: what is persisted is not written again, steady re-stamps neither.
  persister.persist(hpa(), history({{2, 0}, {5, 30}}));
  EXPECT_EQ(persister.flush(), 0);
  EXPECT_EQ(transport->count("PATCH", kHpaPath), failedAttempts + 1);
}

TEST(HistoryPersister, FlushSkipsForgottenHpas) {
  hpa::testing::FakeClock clock;
  hpa::testing::FakeTransport* transport = nullptr;
  auto rest = hpa::testing::fakeRestClient(transport, clock);
  transport->json("PATCH", kHpaPath, {{"kind", "Status"}, {"code", 500}}, 500);
  ApiHistoryPersister persister(*rest, "autoscaling/v2", Logger::discard());
  persister.persist(hpa(), history({{2, 0}, {5, 15}}));
  const int attempts = transport->count("PATCH", kHpaPath);
  persister.forget("shop/web");
  EXPECT_EQ(persister.flush(), 0);
  EXPECT_EQ(transport->count("PATCH", kHpaPath), attempts);
}

}  // namespace
}  // namespace hpa::adapters
