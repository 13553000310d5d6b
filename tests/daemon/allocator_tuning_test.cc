#include "daemon/allocator_tuning.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace hpa::daemon {
namespace {

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

}  // namespace
}  // namespace hpa::daemon
