#include "daemon/allocator_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <string_view>

namespace hpa::daemon {
namespace {

constexpr int kArenas = 2;
constexpr int kMmapThresholdBytes = 128 * 1024;
constexpr int kTrimThresholdBytes = 1024 * 1024;

}  // namespace

bool setsMallocTunables(const char* glibcTunables) {
  return glibcTunables && std::string_view(glibcTunables).find("glibc.malloc.") != std::string_view::npos;
}

bool tuneAllocator() {
  if (setsMallocTunables(std::getenv("GLIBC_TUNABLES"))) return false;
  // mallopt answers 1 on success; setting either threshold also stops glibc from moving it.
  const bool arenas = mallopt(M_ARENA_MAX, kArenas) == 1;
  const bool mmap = mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes) == 1;
  const bool trim = mallopt(M_TRIM_THRESHOLD, kTrimThresholdBytes) == 1;
  return arenas && mmap && trim;
}

FreeMemoryReleaser::FreeMemoryReleaser(std::chrono::milliseconds interval) : interval_(interval) {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_.wait_for(lock, interval_, [this] { return stopping_; })) {
      lock.unlock();
      malloc_trim(0);
      lock.lock();
      ++releases_;
    }
  });
}

FreeMemoryReleaser::~FreeMemoryReleaser() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stop_.notify_all();
  thread_.join();
}

int FreeMemoryReleaser::releases() const {
  std::lock_guard<std::mutex> lock(mu_);
  return releases_;
}

}  // namespace hpa::daemon
