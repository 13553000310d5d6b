#pragma once

#include <chrono>
#include <thread>

namespace hpa::testing {

// Polls `condition` until it holds, for what other threads bring about (informers, workers,
// electors, senders, a cluster). The limit of real time only keeps a broken build from hanging;
// it never paces a passing test. A fake clock never moves on its own here. Conditions that ask
// a server something poll less often (`every`).
template <typename F>
bool eventually(F condition, std::chrono::milliseconds limit = std::chrono::seconds(10),
                std::chrono::milliseconds every = std::chrono::milliseconds(1)) {
  const auto giveUpAt = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > giveUpAt) return false;
    std::this_thread::sleep_for(every);
  }
  return true;
}

}  // namespace hpa::testing
