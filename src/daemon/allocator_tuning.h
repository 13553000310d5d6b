#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/clock.h"

namespace hpa::daemon {

// glibc's allocator, tuned for a controller that lives for months on a small steady working set
// with bursts of large, short-lived buffers (list responses and their JSON trees):
//  - at most 2 malloc arenas: otherwise every thread that allocates gets its own (up to 8 per
//    core), each keeping the free memory of its last burst resident;
//  - a fixed mmap threshold (128 KiB) and trim threshold (1 MiB): glibc's default raises the mmap
//    threshold to the size of the largest buffer freed so far (up to 32 MiB), after which every
//    later list response lives in, and stays in, the arenas.
// The image and the Deployment set the same values, and turn per-thread caches off, through
// GLIBC_TUNABLES (hack/lib/malloc-tunables), which is the only way to reach the caches.
inline constexpr int kMallocArenas = 2;
inline constexpr int kMallocMmapThresholdBytes = 128 * 1024;
inline constexpr int kMallocTrimThresholdBytes = 1024 * 1024;

// Applies the settings above with mallopt, unless GLIBC_TUNABLES already sets a malloc tunable
// (the operator's choice, or the image's). Call before threads start; returns whether it changed
// anything (never under a sanitizer, whose allocator ignores mallopt).
bool tuneAllocator();

// Whether a GLIBC_TUNABLES value (nullptr: unset) sets any malloc tunable.
bool setsMallocTunables(const char* glibcTunables);

// Returns the arenas' free pages to the kernel (malloc_trim) every `interval` of `clock`, on its
// own thread, until destroyed: free() does not release fragmented free memory inside an arena.
class FreeMemoryReleaser {
 public:
  FreeMemoryReleaser(Clock& clock, Duration interval);
  ~FreeMemoryReleaser();
  FreeMemoryReleaser(const FreeMemoryReleaser&) = delete;
  FreeMemoryReleaser& operator=(const FreeMemoryReleaser&) = delete;

  // How many times it has released memory so far.
  int releases() const;

 private:
  void run();

  Clock& clock_;
  const Duration interval_;
  mutable std::mutex mu_;
  std::condition_variable_any stop_;
  bool stopping_ = false;
  int releases_ = 0;
  std::thread thread_;
};

}  // namespace hpa::daemon
