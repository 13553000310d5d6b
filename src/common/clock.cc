#include "common/clock.h"

#include <thread>

namespace hpa {

void Clock::sleepFor(Duration d) {
  std::mutex mu;
  std::condition_variable_any cv;  // never notified: only the clock wakes the sleeper
  std::unique_lock<std::mutex> lock(mu);
  const Time deadline = now() + d;
  while (now() < deadline) waitUntil(cv, lock, deadline);
}

Time RealClock::now() const {
  return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
}

void RealClock::waitUntil(std::condition_variable_any& cv, std::unique_lock<std::mutex>& lock,
                          Time deadline) {
  // Wait on the steady clock so that wall-clock jumps neither stall nor hurry the wait.
  auto remaining = deadline - now();
  if (remaining <= Duration::zero()) return;
  cv.wait_for(lock, remaining);
}

void RealClock::sleepFor(Duration d) {
  // On the steady clock, as waitUntil, so that wall-clock jumps neither stall nor hurry it.
  if (d > Duration::zero()) std::this_thread::sleep_for(d);
}

}  // namespace hpa
