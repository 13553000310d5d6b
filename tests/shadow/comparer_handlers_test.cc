// What the comparer tells its observer from the HPA informer's events, before any comparison.

#include <gtest/gtest.h>

#include "api/codec.h"
#include "fakes/eventually.h"
#include "fakes/fake_list_watch.h"
#include "shadow/shadow_fixture.h"

namespace hpa::shadow {
namespace {

using fixture::ShadowComparerTest;
using hpa::testing::eventually;

TEST_F(ShadowComparerTest, AnHpaIsKnownFromItsAddAndForgottenAtItsDelete) {
  // A standby's comparer (inactive) learns of the HPA as a leader's does.
  ShadowComparer comparer(controller(), observer_, clock_, Logger::discard(), [] { return false; });
  hpa::testing::FakeListWatch source;
  source.putObject(api::encodeHorizontalPodAutoscaler(hpa_, "autoscaling/v2"));
  // Declared after the comparer: stopped (destroyed) before it.
  informer::Informer<api::HorizontalPodAutoscaler> hpas(
      source, api::decodeCachedHorizontalPodAutoscaler,
      [](const api::HorizontalPodAutoscaler& h) {
        return std::make_pair(h.metadata.namespace_, h.metadata.name);
      },
      clock_, Logger::discard());
  comparer.registerHandlers(hpas);
  hpas.start();
  ASSERT_TRUE(eventually([&] { return hpas.hasSynced() && !observer_.known().empty(); }));
  EXPECT_EQ(observer_.known(), std::vector<std::string>{"default/web"});
  EXPECT_TRUE(observer_.causes.empty()) << "nothing compared";

  source.removeObject("default/web");
  ASSERT_TRUE(eventually([&] { return !observer_.forgotten().empty(); }));
  EXPECT_EQ(observer_.forgotten(), std::vector<std::string>{"default/web"});
  hpas.stop();
}

}  // namespace
}  // namespace hpa::shadow
