#include "common/clock.h"

namespace hpa {

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

}  // namespace hpa
