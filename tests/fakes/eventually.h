#pragma once

#include <chrono>
#include <thread>

namespace hpa::testing {

// Polls `condition` for up to about four seconds of real time: for what other threads (informers,
// electors, senders) bring about. A fake clock never moves on its own here.
template <typename F>
bool eventually(F condition) {
  for (int i = 0; i < 2000; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return condition();
}

}  // namespace hpa::testing
