#include "daemon/allocator_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <string_view>

namespace hpa::daemon {

bool setsMallocTunables(const char* glibcTunables) {
  return glibcTunables &&
         std::string_view(glibcTunables).find("glibc.malloc.") != std::string_view::npos;
}

bool tuneAllocator() {
  if (setsMallocTunables(std::getenv("GLIBC_TUNABLES"))) return false;
  // mallopt answers 1 on success; setting either threshold also stops glibc from moving it.
  const bool arenas = mallopt(M_ARENA_MAX, kMallocArenas) == 1;
  const bool mmap = mallopt(M_MMAP_THRESHOLD, kMallocMmapThresholdBytes) == 1;
  const bool trim = mallopt(M_TRIM_THRESHOLD, kMallocTrimThresholdBytes) == 1;
  return arenas && mmap && trim;
}

FreeMemoryReleaser::FreeMemoryReleaser(Clock& clock, Duration interval)
    : clock_(clock), interval_(interval), thread_([this] { run(); }) {}

FreeMemoryReleaser::~FreeMemoryReleaser() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stop_.notify_all();
  thread_.join();
}

void FreeMemoryReleaser::run() {
  std::unique_lock<std::mutex> lock(mu_);
  Time next = clock_.now() + interval_;
  while (!stopping_) {
    if (clock_.now() < next) {
      clock_.waitUntil(stop_, lock, next);
      continue;  // woken early, by a stop or spuriously: look again
    }
    lock.unlock();
    malloc_trim(0);
    lock.lock();
    ++releases_;
    next = clock_.now() + interval_;
  }
}

int FreeMemoryReleaser::releases() const {
  std::lock_guard<std::mutex> lock(mu_);
  return releases_;
}

}  // namespace hpa::daemon
