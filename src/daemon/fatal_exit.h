#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace hpa::daemon {

// Sets every TCP socket of the process to close with a reset (SO_LINGER with a zero timeout):
// what the kernel still holds of a request (sent by the process, not yet acknowledged, e.g. while
// the API server is cut off and the packets are dropped) is then discarded when the socket closes,
// instead of being retransmitted, and delivered, once the network returns. Returns how many
// sockets it set.
int resetConnectionsOnClose();

// kube-controller-manager's way out when its leader election is lost (klog.Fatalf("leaderelection
// lost")): at once, without finishing the reconciles in flight (each could still write), and with
// every connection reset (resetConnectionsOnClose), so nothing this process asked for reaches the
// API server after a standby may have taken the Lease.
[[noreturn]] void exitAtOnce(int code);

// A bound on a graceful stop. A reconcile stuck in a worker (a hung call, a deadlock: what the
// liveness probe restarts) would hold the stop, and with it the Lease, for the pod's whole grace
// period, then the lease duration after the kill: the standby would wait both. Armed when the stop
// begins, this calls `onExpiry` (the daemon: a log line and exitAtOnce, the Lease left to expire
// rather than released while a reconcile could still write) unless destroyed, the stop finished,
// within `deadline`.
class StopDeadline {
 public:
  StopDeadline(std::chrono::steady_clock::duration deadline, std::function<void()> onExpiry);
  ~StopDeadline();
  StopDeadline(const StopDeadline&) = delete;
  StopDeadline& operator=(const StopDeadline&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool finished_ = false;
  std::thread timer_;
};

}  // namespace hpa::daemon
