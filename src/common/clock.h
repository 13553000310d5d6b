#pragma once

#include <condition_variable>
#include <mutex>

#include "common/time.h"

namespace hpa {

// Source of time and of timed waits. Everything that reads the time or sleeps takes a Clock,
// so that tests drive time with a fake clock instead of sleeping.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual Time now() const = 0;

  // Waits on `cv` (with `lock` held, as std::condition_variable_any::wait_until) until it is
  // notified or the clock reaches `deadline`. Spurious wake-ups are allowed: callers re-check
  // their predicate and the time. A fake clock wakes every waiter when it is stepped.
  virtual void waitUntil(std::condition_variable_any& cv, std::unique_lock<std::mutex>& lock,
                         Time deadline) = 0;

  void waitFor(std::condition_variable_any& cv, std::unique_lock<std::mutex>& lock, Duration d) {
    waitUntil(cv, lock, now() + d);
  }

  // Blocks the calling thread until the clock has moved on by `d` (nothing wakes it earlier).
  // The default waits through waitUntil until now() reaches the deadline, so a fake clock
  // releases the sleeper only when it is stepped that far. A clock whose time does not move
  // while a thread waits (one stopped at an instant) must override it, or the loop never ends.
  virtual void sleepFor(Duration d);
};

class RealClock final : public Clock {
 public:
  Time now() const override;
  void waitUntil(std::condition_variable_any& cv, std::unique_lock<std::mutex>& lock,
                 Time deadline) override;
  void sleepFor(Duration d) override;
};

}  // namespace hpa
