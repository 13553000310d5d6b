// The standby's workload caches: started as HPAs are seen, before anything is reconciled.

#include "adapters/workload_cache_warmer.h"

#include <gtest/gtest.h>

#include "controls/hpa_controls.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_list_watch.h"

namespace hpa::adapters {
namespace {

std::shared_ptr<const api::HorizontalPodAutoscaler> hpaOn(const std::string& kind,
                                                          bool byOwner = false) {
  api::HorizontalPodAutoscaler hpa;
  hpa.metadata.name = "web";
  hpa.metadata.namespace_ = "shop";
  hpa.spec.scaleTargetRef = {
      kind, "web", kind == "Deployment" || kind == "StatefulSet" ? "apps/v1" : "example.com/v1"};
  if (byOwner) hpa.metadata.annotations[controls::kPodSelectionAnnotation] = "OwnerReferences";
  return std::make_shared<const api::HorizontalPodAutoscaler>(hpa);
}

class WorkloadCacheWarmerTest : public ::testing::Test {
 protected:
  hpa::testing::FakeClock clock_;
  std::vector<std::string> started_;
  informer::WorkloadCaches caches_{
      [this](const api::BuiltinWorkload& w) -> std::unique_ptr<informer::ListerWatcher> {
        started_.push_back(w.kind);
        return std::make_unique<hpa::testing::FakeListWatch>();
      },
      clock_, Logger::discard()};
  informer::EventHandlers<api::HorizontalPodAutoscaler> handlers_ = warmWorkloadCaches(caches_);
};

TEST_F(WorkloadCacheWarmerTest, AnHpaSeenStartsItsTargetsKindOnce) {
  handlers_.onAdd(hpaOn("Deployment"));
  handlers_.onAdd(hpaOn("Deployment"));
  handlers_.onAdd(hpaOn("Widget"));  // no cache for custom kinds: /scale only
  EXPECT_EQ(started_, std::vector<std::string>{"Deployment"});
  auto statefulSet = hpaOn("StatefulSet");
  handlers_.onUpdate(statefulSet, statefulSet);  // a resync re-announces: nothing new to warm
  EXPECT_EQ(started_, std::vector<std::string>{"Deployment"});
  handlers_.onUpdate(hpaOn("Deployment"), statefulSet);  // retargeted
  EXPECT_EQ(started_, (std::vector<std::string>{"Deployment", "StatefulSet"}));
}

TEST_F(WorkloadCacheWarmerTest, OwnerBasedSelectionAlsoWarmsReplicaSets) {
  handlers_.onAdd(hpaOn("Deployment", /*byOwner=*/true));
  EXPECT_EQ(started_, (std::vector<std::string>{"Deployment", "ReplicaSet"}));
}

}  // namespace
}  // namespace hpa::adapters
