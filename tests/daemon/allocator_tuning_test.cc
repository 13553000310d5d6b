#include "daemon/allocator_tuning.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "fakes/eventually.h"

namespace hpa::daemon {
namespace {

using testing::eventually;

TEST(AllocatorTuning, TheOperatorsMallocTunablesWin) {
  EXPECT_FALSE(setsMallocTunables(nullptr));
  EXPECT_FALSE(setsMallocTunables(""));
  EXPECT_FALSE(setsMallocTunables("glibc.rtld.nns=2")) << "tunables of other parts of glibc do not count";
  EXPECT_TRUE(setsMallocTunables("glibc.malloc.arena_max=8"));
  EXPECT_TRUE(setsMallocTunables("glibc.rtld.nns=2:glibc.malloc.trim_threshold=0"));
  ::setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=8", 1);
  EXPECT_FALSE(tuneAllocator()) << "left alone when the operator tuned malloc";
  ::unsetenv("GLIBC_TUNABLES");
}

TEST(FreeMemoryReleaser, ReleasesEveryIntervalAndStopsAtOnce) {
  {
    FreeMemoryReleaser releaser(std::chrono::milliseconds(5));
    EXPECT_TRUE(eventually([&] { return releaser.releases() >= 3; }));
  }
  {
    FreeMemoryReleaser idle(std::chrono::hours(1));
    EXPECT_EQ(idle.releases(), 0);
  }  // its destructor must not wait for the hour (the test's timeout would end it)
}

}  // namespace
}  // namespace hpa::daemon
