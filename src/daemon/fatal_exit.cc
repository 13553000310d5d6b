#include "daemon/fatal_exit.h"

#include <dirent.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace hpa::daemon {
namespace {

bool isTcpSocket(int fd) {
  int type = 0;
  socklen_t len = sizeof type;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM) return false;
  sockaddr_storage addr{};
  socklen_t addrLen = sizeof addr;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &addrLen) != 0) return false;
  return addr.ss_family == AF_INET || addr.ss_family == AF_INET6;
}

}  // namespace

int resetConnectionsOnClose() {
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return 0;
  const int own = dirfd(fds);
  int set = 0;
  while (const dirent* entry = readdir(fds)) {
    const std::string_view name = entry->d_name;
    if (name.empty() || name[0] < '0' || name[0] > '9') continue;
    const int fd = std::atoi(entry->d_name);
    if (fd == own || !isTcpSocket(fd)) continue;
    const linger reset{1, 0};
    if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset) == 0) ++set;
  }
  closedir(fds);
  return set;
}

void exitAtOnce(int code) {
  resetConnectionsOnClose();
  std::fflush(nullptr);
  _exit(code);
}

StopDeadline::StopDeadline(std::chrono::steady_clock::duration deadline,
                           std::function<void()> onExpiry)
    : timer_([this, deadline, onExpiry = std::move(onExpiry)] {
        std::unique_lock<std::mutex> lock(mu_);
        if (!cv_.wait_for(lock, deadline, [this] { return finished_; })) onExpiry();
      }) {}

StopDeadline::~StopDeadline() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
  }
  cv_.notify_all();
  timer_.join();
}

}  // namespace hpa::daemon
