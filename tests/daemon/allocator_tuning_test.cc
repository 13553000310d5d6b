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

TEST(AllocatorTuning, TheDaemonAddsItsTunablesUnlessMallocIsTunedAlready) {
  EXPECT_EQ(tunablesToRunWith(nullptr), std::optional<std::string>(kDaemonMallocTunables));
  EXPECT_EQ(tunablesToRunWith(""), std::optional<std::string>(kDaemonMallocTunables));
  EXPECT_EQ(tunablesToRunWith("glibc.rtld.nns=2"), std::optional<std::string>(std::string("glibc.rtld.nns=2:") +
                                                                               kDaemonMallocTunables));
  EXPECT_EQ(tunablesToRunWith("glibc.malloc.tcache_count=7"), std::nullopt) << "the operator's choice";
  EXPECT_EQ(tunablesToRunWith(kDaemonMallocTunables.c_str()), std::nullopt) << "after the re-execution: no loop";
  EXPECT_NE(std::string(kDaemonMallocTunables).find("glibc.malloc.tcache_count=0"), std::string::npos);
}

TEST(AllocatorTuning, SplitsACommandLineKeepingEmptyArguments) {
  using Args = std::vector<std::string>;
  EXPECT_EQ(splitCommandLine(std::string_view("hpa-controller\0--v\0002\0", 21)), (Args{"hpa-controller", "--v", "2"}));
  EXPECT_EQ(splitCommandLine(std::string_view("a\0\0b\0", 5)), (Args{"a", "", "b"}));
  EXPECT_EQ(splitCommandLine(""), Args{});
}

TEST(AllocatorTuning, RerunsTheExecutableByItsPathSoThatTheProcessKeepsItsName) {
  EXPECT_EQ(executableToRerun("/usr/bin/hpa-controller"), "/usr/bin/hpa-controller");
  EXPECT_EQ(executableToRerun("/usr/bin/hpa-controller (deleted)"), "/proc/self/exe");
  EXPECT_EQ(executableToRerun(""), "/proc/self/exe");
  EXPECT_EQ(executableToRerun("hpa-controller"), "/proc/self/exe");
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
