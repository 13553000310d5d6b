#include "daemon/allocator_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <string_view>

namespace hpa::daemon {
namespace {

constexpr int kArenas = 2;

}  // namespace

bool setsMallocTunables(const char* glibcTunables) {
  return glibcTunables && std::string_view(glibcTunables).find("glibc.malloc.") != std::string_view::npos;
}

bool tuneAllocator() {
  if (setsMallocTunables(std::getenv("GLIBC_TUNABLES"))) return false;
  return mallopt(M_ARENA_MAX, kArenas) == 1;  // mallopt answers 1 on success
}

}  // namespace hpa::daemon
