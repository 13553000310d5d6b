#include "daemon/allocator_tuning.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

namespace hpa::daemon {
namespace {

constexpr const char* kSelfExe = "/proc/self/exe";

}  // namespace

bool setsMallocTunables(const char* glibcTunables) {
  return glibcTunables && std::string_view(glibcTunables).find("glibc.malloc.") != std::string_view::npos;
}

std::optional<std::string> tunablesToRunWith(const char* glibcTunables) {
  if (setsMallocTunables(glibcTunables)) return std::nullopt;
  const std::string current = glibcTunables ? glibcTunables : "";
  return current.empty() ? kDaemonMallocTunables : current + ":" + kDaemonMallocTunables;
}

std::string executableToRerun(std::string_view selfExeTarget) {
  constexpr std::string_view kDeleted = " (deleted)";
  const bool usable = !selfExeTarget.empty() && selfExeTarget.front() == '/' &&
                      !selfExeTarget.ends_with(kDeleted);
  return usable ? std::string(selfExeTarget) : std::string(kSelfExe);
}

std::vector<std::string> splitCommandLine(std::string_view cmdline) {
  std::vector<std::string> args;
  while (!cmdline.empty()) {
    const auto end = cmdline.find('\0');
    args.emplace_back(cmdline.substr(0, end));
    if (end == std::string_view::npos) break;
    cmdline.remove_prefix(end + 1);
  }
  return args;
}

void reexecWithMallocTunables() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return;
#else
  const char* original = std::getenv("GLIBC_TUNABLES");
  auto tunables = tunablesToRunWith(original);
  if (!tunables) return;
  const std::optional<std::string> saved = original ? std::optional<std::string>(original) : std::nullopt;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args = splitCommandLine(cmdline);
  if (args.empty()) return;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (::setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0) return;
  std::error_code error;
  const std::string target = std::filesystem::read_symlink(kSelfExe, error).string();
  ::execv(executableToRerun(error ? std::string_view() : target).c_str(), argv.data());
  // Still here: the exec failed (no /proc, say). Run on, tuned by mallopt alone.
  if (saved) {
    ::setenv("GLIBC_TUNABLES", saved->c_str(), 1);
  } else {
    ::unsetenv("GLIBC_TUNABLES");
  }
#endif
}

bool tuneAllocator() {
  if (setsMallocTunables(std::getenv("GLIBC_TUNABLES"))) return false;
  // mallopt answers 1 on success; setting either threshold also stops glibc from moving it.
  const bool arenas = mallopt(M_ARENA_MAX, kMallocArenas) == 1;
  const bool mmap = mallopt(M_MMAP_THRESHOLD, kMallocMmapThresholdBytes) == 1;
  const bool trim = mallopt(M_TRIM_THRESHOLD, kMallocTrimThresholdBytes) == 1;
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
