#pragma once

#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/result.h"

namespace hpa::metricsclient {

// One answer per key, shared by callers: a caller reuses the answer while it is younger than the
// age that caller accepts (half its HPA's own sync period); an older answer is fetched again.
// A failure is reused too, but for at most `kFailureMaxAge`: a failing API is asked about once a
// second per key, not once per HPA, and an API that comes back (an apiserver restart, where the
// first lists answer 503) serves the next HPAs within that second rather than half a period later.
// Callers arriving while a fetch is in flight wait for it instead of sending their own. Answers
// older than `retention` are dropped. Thread-safe.
template <typename Key, typename Value>
class BatchCache {
 public:
  using Answer = std::shared_ptr<const Result<Value>>;

  static constexpr Duration kFailureMaxAge = std::chrono::seconds(1);
  static constexpr Duration kSweepInterval = std::chrono::seconds(1);

  BatchCache(Clock& clock, Duration retention) : clock_(clock), retention_(retention) {}

  // `fetch` runs without the lock; it must not throw.
  template <typename Fetch>
  Answer get(const Key& key, Duration maxAge, Fetch&& fetch) {
    // Answers replaced or dropped here are freed after the lock is let go (declared before it, so
    // destroyed after it): a namespace's list is thousands of objects, and other keys' callers
    // should not wait while they are freed.
    std::vector<Answer> released;
    std::unique_lock<std::mutex> lock(mu_);
    const Time now = clock_.now();
    dropOld(now, released);
    Entry& entry = entries_[key];
    while (entry.inFlight) cv_.wait(lock);
    if (entry.answer) {
      const Duration reusable =
          std::min({maxAge, retention_, entry.answer->ok() ? maxAge : kFailureMaxAge});
      if (now - entry.fetchedAt < reusable) return entry.answer;
    }
    entry.inFlight = true;
    lock.unlock();
    Answer answer = std::make_shared<const Result<Value>>(fetch());
    lock.lock();
    // The entry's address is stable: std::map nodes stay put, and entries in flight are never
    // dropped.
    released.push_back(std::exchange(entry.answer, answer));
    entry.fetchedAt = clock_.now();
    entry.inFlight = false;
    ++fetches_;
    cv_.notify_all();
    return answer;
  }

  // Fetches sent so far.
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

  // Frees the answers past `retention`; a sweep reads every key, so it runs at most once a
  // second, not per call (get() ignores an answer past retention that is still here).
  void dropOld(Time now, std::vector<Answer>& released) {
    if (now - lastSweep_ < std::min(retention_, kSweepInterval)) return;
    lastSweep_ = now;
    for (auto it = entries_.begin(); it != entries_.end();) {
      const bool old =
          !it->second.inFlight && it->second.answer && now - it->second.fetchedAt >= retention_;
      if (old) released.push_back(std::move(it->second.answer));
      it = old ? entries_.erase(it) : std::next(it);
    }
  }

  Clock& clock_;
  const Duration retention_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<Key, Entry> entries_;
  Time lastSweep_{};
  std::uint64_t fetches_ = 0;
};

}  // namespace hpa::metricsclient
