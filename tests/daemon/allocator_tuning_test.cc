#include "daemon/allocator_tuning.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"

namespace hpa::daemon {
namespace {

using testing::eventually;

TEST(AllocatorTuning, TheOperatorsMallocTunablesWin) {
  EXPECT_FALSE(setsMallocTunables(nullptr));
  EXPECT_FALSE(setsMallocTunables(""));
  EXPECT_FALSE(setsMallocTunables("glibc.rtld.nns=2"))
      << "tunables of other parts of glibc do not count";
  EXPECT_TRUE(setsMallocTunables("glibc.malloc.arena_max=8"));
  EXPECT_TRUE(setsMallocTunables("glibc.rtld.nns=2:glibc.malloc.trim_threshold=0"));
  ::setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=8", 1);
  EXPECT_FALSE(tuneAllocator()) << "left alone when the operator tuned malloc";
  ::unsetenv("GLIBC_TUNABLES");
}

TEST(FreeMemoryReleaser, ReleasesOncePerIntervalOfItsClock) {
  testing::FakeClock clock;
  FreeMemoryReleaser releaser(clock, std::chrono::seconds(30));
  ASSERT_TRUE(eventually([&] { return clock.waiterCount() == 1; }));
  EXPECT_EQ(releaser.releases(), 0);

  clock.step(std::chrono::seconds(30));
  ASSERT_TRUE(eventually([&] { return releaser.releases() == 1; }));

  // Part of an interval: the releaser wakes, looks, and parks again without releasing.
  ASSERT_TRUE(eventually([&] { return clock.waiterCount() == 1; }));
  const size_t waits = clock.waitsBegun();
  clock.step(std::chrono::seconds(29));
  ASSERT_TRUE(eventually([&] { return clock.waitsBegun() > waits; }));
  EXPECT_EQ(releaser.releases(), 1);

  clock.step(std::chrono::seconds(1));
  EXPECT_TRUE(eventually([&] { return releaser.releases() == 2; }));
}

TEST(FreeMemoryReleaser, StopsAtOnceWhenDestroyed) {
  testing::FakeClock clock;
  {
    FreeMemoryReleaser idle(clock, std::chrono::hours(1));
    ASSERT_TRUE(eventually([&] { return clock.waiterCount() == 1; }));
  }  // must not wait for the hour: the clock never moves, so only the stop can end the wait
  EXPECT_EQ(clock.waiterCount(), 0u);
}

}  // namespace
}  // namespace hpa::daemon
