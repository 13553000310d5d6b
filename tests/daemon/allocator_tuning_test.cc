#include "daemon/allocator_tuning.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace hpa::daemon {
namespace {

TEST(AllocatorTuning, LimitsArenasUnlessTheOperatorTunedMalloc) {
  ::setenv("GLIBC_TUNABLES", "glibc.malloc.arena_max=8", 1);
  EXPECT_FALSE(tuneAllocator()) << "the operator's own malloc tunables win";
  ::setenv("GLIBC_TUNABLES", "glibc.rtld.nns=2", 1);
  EXPECT_TRUE(tuneAllocator()) << "tunables of other parts of glibc do not count";
  ::unsetenv("GLIBC_TUNABLES");
  EXPECT_TRUE(tuneAllocator());
}

}  // namespace
}  // namespace hpa::daemon
