#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace hpa::daemon {

// Tunes glibc's allocator for a controller that lives for months on a small steady working set
// with bursts of large, short-lived buffers (list responses and their JSON trees):
//  - at most 2 malloc arenas: otherwise every thread that allocates gets its own (up to 8 per
//    core), each keeping the free memory of its last burst resident (at 1,000 HPAs 108 MiB
//    resident against 65 MiB with 2 arenas, bench/README.md);
//  - a fixed mmap threshold (128 KiB) and trim threshold (1 MiB): glibc's default raises the mmap
//    threshold to the size of the largest buffer freed so far (up to 32 MiB), after which every
//    later list response lives in, and stays in, the arenas.
// Left alone when the operator set malloc tunables (GLIBC_TUNABLES) themselves. Call before
// threads start; returns whether it changed anything (never under a sanitizer, whose allocator
// ignores mallopt).
bool tuneAllocator();

// Whether a GLIBC_TUNABLES value (nullptr: unset) sets any malloc tunable.
bool setsMallocTunables(const char* glibcTunables);

// glibc sizes its per-thread caches (tcache) from GLIBC_TUNABLES only, read once at start:
// mallopt cannot change them. Each of the daemon's 20 threads keeps up to 7 freed chunks of every
// small size in its cache, where neither other threads nor malloc_trim can reuse or return them:
// at 500 HPAs 1.5 to 2.5 MiB of the 10 MiB heap (bench/README.md). So the daemon runs with these
// tunables: tuneAllocator's settings (the same constants), and no per-thread caches.
inline constexpr int kMallocArenas = 2;
inline constexpr int kMallocMmapThresholdBytes = 128 * 1024;
inline constexpr int kMallocTrimThresholdBytes = 1024 * 1024;
inline const std::string kDaemonMallocTunables =
    "glibc.malloc.arena_max=" + std::to_string(kMallocArenas) +
    ":glibc.malloc.mmap_threshold=" + std::to_string(kMallocMmapThresholdBytes) +
    ":glibc.malloc.trim_threshold=" + std::to_string(kMallocTrimThresholdBytes) + ":glibc.malloc.tcache_count=0";

// The GLIBC_TUNABLES value the daemon should run with, given the current one (nullptr: unset):
// the current one plus kDaemonMallocTunables, or nullopt when it already sets malloc tunables
// (the operator's own choice, or an earlier re-execution).
std::optional<std::string> tunablesToRunWith(const char* glibcTunables);

// The file to execute again, given where /proc/self/exe points: that path, so that the process
// keeps its name (executing /proc/self/exe itself renames it "exe" for ps, top and pgrep), or
// /proc/self/exe when the link is unreadable or the file was replaced or deleted since start.
std::string executableToRerun(std::string_view selfExeTarget);

// The arguments in a /proc/PID/cmdline text (each one NUL-terminated).
std::vector<std::string> splitCommandLine(std::string_view cmdline);

// Executes this program again, same pid and arguments, with tunablesToRunWith in GLIBC_TUNABLES
// (inherited by the processes the daemon starts, such as exec credential plugins). Call first,
// before any thread starts. Returns when it did not: malloc tunables already set, a sanitizer's
// allocator (which ignores them), or a failed exec (then tuneAllocator's mallopt settings apply).
void reexecWithMallocTunables();

// Returns the arenas' free pages to the kernel (malloc_trim) every `interval`, on its own thread,
// until destroyed. Fragmented free memory inside an arena is not released by free() at all: at
// 1,000 HPAs 37 of 52 MiB of heap were free but resident between bursts (malloc_stats).
class FreeMemoryReleaser {
 public:
  explicit FreeMemoryReleaser(std::chrono::milliseconds interval);
  ~FreeMemoryReleaser();
  FreeMemoryReleaser(const FreeMemoryReleaser&) = delete;
  FreeMemoryReleaser& operator=(const FreeMemoryReleaser&) = delete;

  // How many times it has released memory so far.
  int releases() const;

 private:
  std::chrono::milliseconds interval_;
  mutable std::mutex mu_;
  std::condition_variable stop_;
  bool stopping_ = false;
  int releases_ = 0;
  std::thread thread_;
};

}  // namespace hpa::daemon
