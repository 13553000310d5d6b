#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "common/time.h"
#include "common/token_bucket.h"

namespace hpa::workqueue {

// Decides how long a key waits before it is retried (client-go's workqueue.RateLimiter).
// Implementations are thread-safe.
class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // The delay before `key` is processed again; each call counts as one more retry of it.
  virtual Duration when(const std::string& key) = 0;
  // Stops tracking `key` (it succeeded or was given up on), resetting its back-off.
  virtual void forget(const std::string& key) = 0;
  // How many times `key` has been retried since it was last forgotten.
  virtual int numRequeues(const std::string& key) = 0;
};
using RateLimiterPtr = std::unique_ptr<RateLimiter>;

// Per-key exponential back-off: base * 2^(retries so far), capped at `maxDelay`.
class ItemExponentialFailureRateLimiter final : public RateLimiter {
 public:
  ItemExponentialFailureRateLimiter(Duration baseDelay, Duration maxDelay);

  Duration when(const std::string& key) override;
  void forget(const std::string& key) override;
  int numRequeues(const std::string& key) override;

 private:
  const Duration baseDelay_;
  const Duration maxDelay_;
  std::mutex mu_;
  std::unordered_map<std::string, int> failures_;  // guarded by mu_
};

// One token bucket shared by all keys: bounds the overall retry rate, whatever the key. Keeps no
// per-key state, so numRequeues() is always 0 and forget() does nothing.
class BucketRateLimiter final : public RateLimiter {
 public:
  BucketRateLimiter(double qps, int burst, Clock& clock);

  Duration when(const std::string& key) override;
  void forget(const std::string& key) override;
  int numRequeues(const std::string& key) override;

 private:
  TokenBucket bucket_;
};

// Combines limiters: the longest delay wins; retries are the largest count any of them keeps.
class MaxOfRateLimiter final : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<RateLimiterPtr> limiters);

  // Asks every limiter, so each records the retry even when another one's delay wins.
  Duration when(const std::string& key) override;
  void forget(const std::string& key) override;
  int numRequeues(const std::string& key) override;

 private:
  const std::vector<RateLimiterPtr> limiters_;
};

// The HPA controller's limiter (upstream's FixedItemIntervalRateLimiter): every key waits the
// same interval, the sync period, so errors neither speed up nor slow down a key's resync.
// numRequeues() is always 1 and forget() does nothing, as upstream. A key may have an interval
// of its own (KEP-6003's per-HPA sync period), set and dropped by the queue's owner.
class FixedIntervalRateLimiter final : public RateLimiter {
 public:
  explicit FixedIntervalRateLimiter(Duration interval) : interval_(interval) {}

  Duration when(const std::string& key) override;
  void forget(const std::string& key) override;
  int numRequeues(const std::string& key) override;

  // `key` waits `interval` from now on; nullopt (or the default interval) drops its own.
  void setInterval(const std::string& key, std::optional<Duration> interval);
  std::size_t keysWithOwnInterval() const;

 private:
  const Duration interval_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Duration> perKey_;  // guarded by mu_
};

// client-go's DefaultControllerRateLimiter: per-key exponential back-off from 5 ms to 1000 s,
// and an overall 10 retries per second with bursts of 100 across all keys.
RateLimiterPtr defaultControllerRateLimiter(Clock& clock);

}  // namespace hpa::workqueue
