#include "daemon/allocator_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <string_view>

namespace hpa::daemon {
namespace {

constexpr int kArenas = 2;

}  // namespace

bool tuneAllocator() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::string_view(tunables).find("glibc.malloc.") != std::string_view::npos) return false;
  return mallopt(M_ARENA_MAX, kArenas) == 1;  // mallopt answers 1 on success
}

}  // namespace hpa::daemon
