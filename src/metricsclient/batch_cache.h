#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>

#include "common/clock.h"
#include "common/result.h"

namespace hpa::metricsclient {

// One answer per key per window, shared by every caller: the first caller after the window
// fetches; callers arriving while that fetch is in flight wait for it instead of sending their
// own; callers within the window reuse the answer, failures included, so a failing API is asked
// once per window, not once per HPA. Answers older than two windows are dropped. Thread-safe.
template <typename Key, typename Value>
class BatchCache {
 public:
  using Answer = std::shared_ptr<const Result<Value>>;

  BatchCache(Clock& clock, Duration window) : clock_(clock), window_(window) {}

  // `fetch` runs without the lock; it must not throw.
  template <typename Fetch>
  Answer get(const Key& key, Fetch&& fetch) {
    std::unique_lock<std::mutex> lock(mu_);
    const Time now = clock_.now();
    dropOld(now);
    Entry& entry = entries_[key];
    while (entry.inFlight) cv_.wait(lock);
    if (entry.answer && now - entry.fetchedAt < window_) return entry.answer;
    entry.inFlight = true;
    lock.unlock();
    Answer answer = std::make_shared<const Result<Value>>(fetch());
    lock.lock();
    // The entry's address is stable: std::map nodes stay put, and entries in flight are never dropped.
    entry.answer = answer;
    entry.fetchedAt = clock_.now();
    entry.inFlight = false;
    ++fetches_;
    cv_.notify_all();
    return answer;
  }

  // Fetches sent so far (each served every caller of its window).
  std::uint64_t fetches() const {
    std::lock_guard<std::mutex> lock(mu_);
    return fetches_;
  }

 private:
  struct Entry {
    Answer answer;
    Time fetchedAt{};
    bool inFlight = false;
  };

  void dropOld(Time now) {
    for (auto it = entries_.begin(); it != entries_.end();) {
      const bool old = !it->second.inFlight && it->second.answer && now - it->second.fetchedAt >= 2 * window_;
      it = old ? entries_.erase(it) : std::next(it);
    }
  }

  Clock& clock_;
  const Duration window_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<Key, Entry> entries_;
  std::uint64_t fetches_ = 0;
};

}  // namespace hpa::metricsclient
