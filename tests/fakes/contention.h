#pragma once

// Busy threads on every core for as long as the object lives: the client thread, the transport's
// I/O thread and the server's threads then run in whatever slices the scheduler leaves them, which
// is how a node under load interleaves them (a race that an idle machine hides shows up here).

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace hpa::testing {

class Contention {
 public:
  explicit Contention(unsigned extraThreads = 1) {
    const unsigned n = std::max(1u, std::thread::hardware_concurrency()) + extraThreads;
    for (unsigned i = 0; i < n; ++i) {
      spinners_.emplace_back([this] {
        while (!stop_.load(std::memory_order_relaxed)) {
          std::atomic_signal_fence(std::memory_order_seq_cst);
        }
      });
    }
  }
  ~Contention() {
    stop_ = true;
    for (auto& t : spinners_) t.join();
  }
  Contention(const Contention&) = delete;
  Contention& operator=(const Contention&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> spinners_;
};

}  // namespace hpa::testing
