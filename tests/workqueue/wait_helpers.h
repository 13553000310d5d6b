#pragma once

#include <chrono>
#include <thread>

namespace hpa::workqueue::testing {

// Spins, yielding, until `condition` holds. Threads in these tests meet within microseconds; the
// real-time bound only keeps a broken build from hanging, it never paces a passing test.
template <typename Condition>
bool eventually(Condition condition) {
  const auto giveUpAt = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > giveUpAt) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace hpa::workqueue::testing
