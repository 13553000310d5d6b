#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

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
