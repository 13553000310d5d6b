#pragma once

#include <algorithm>
#include <mutex>
#include <vector>

#include "common/clock.h"

namespace hpa::testing {

// A clock that moves only when told to. Waiters registered through waitUntil() are woken on
// every step; the waiter's own mutex is taken before notifying, so no wake-up is lost between
// a waiter's time check and its wait.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(Time start = Time(std::chrono::seconds(1700000000))) : now_(start) {}

  Time now() const override {
    std::lock_guard<std::mutex> g(mu_);
    return now_;
  }

  void set(Time t) {
    std::vector<Waiter> waiters;
    {
      std::lock_guard<std::mutex> g(mu_);
      now_ = t;
      waiters = waiters_;
    }
    for (auto& w : waiters) {
      std::lock_guard<std::mutex> g(*w.mutex);
      w.cv->notify_all();
    }
  }
  void step(Duration d) { set(now() + d); }

  // Number of threads currently blocked in waitUntil (lets tests wait for a thread to park).
  size_t waiterCount() const {
    std::lock_guard<std::mutex> g(mu_);
    return waiters_.size();
  }
  // Waits begun so far: a count above the one read before a step shows that a waiter woke and
  // parked again (waiterCount alone still counts a waiter the step has not woken yet).
  size_t waitsBegun() const {
    std::lock_guard<std::mutex> g(mu_);
    return waitsBegun_;
  }

  void waitUntil(std::condition_variable_any& cv, std::unique_lock<std::mutex>& lock,
                 Time deadline) override {
    Waiter self{&cv, lock.mutex()};
    {
      std::lock_guard<std::mutex> g(mu_);
      if (now_ >= deadline) return;
      waiters_.push_back(self);
      ++waitsBegun_;
    }
    cv.wait(lock);
    std::lock_guard<std::mutex> g(mu_);
    auto it = std::find_if(waiters_.begin(), waiters_.end(), [&](const Waiter& w) {
      return w.cv == self.cv && w.mutex == self.mutex;
    });
    if (it != waiters_.end()) waiters_.erase(it);
  }

 private:
  struct Waiter {
    std::condition_variable_any* cv;
    std::mutex* mutex;
  };
  mutable std::mutex mu_;
  Time now_;
  std::vector<Waiter> waiters_;
  size_t waitsBegun_ = 0;
};

}  // namespace hpa::testing
