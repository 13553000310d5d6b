#pragma once

#include "common/clock.h"

namespace hpa::explain {

// A clock stopped at the decision's "now" (`explain` decides at one instant).
class StoppedClock final : public Clock {
 public:
  explicit StoppedClock(Time t) : t_(t) {}
  Time now() const override { return t_; }
  void waitUntil(std::condition_variable_any&, std::unique_lock<std::mutex>&, Time) override {}
  void sleepFor(Duration) override {}

 private:
  Time t_;
};

}  // namespace hpa::explain
