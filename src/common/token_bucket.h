#pragma once

#include <condition_variable>
#include <mutex>

#include "common/clock.h"
#include "common/time.h"

namespace hpa {

// A token bucket holding up to `burst` tokens and refilled at `qps` tokens per second, with the
// semantics of golang.org/x/time/rate that client-go builds on (client-side API throttling via
// --kube-api-qps/--kube-api-burst, and the workqueue's BucketRateLimiter): the bucket starts
// full, and a reservation always succeeds, possibly by going into debt that later callers wait
// out. Thread-safe; every wait goes through the injected Clock.
//
// A non-positive, NaN or infinite `qps` means "no limit", as client-go builds no rate limiter for
// a non-positive QPS. A `burst` below 1 is raised to 1 so that a limited bucket can ever grant.
class TokenBucket {
 public:
  TokenBucket(double qps, int burst, Clock& clock);
  TokenBucket(const TokenBucket&) = delete;
  TokenBucket& operator=(const TokenBucket&) = delete;

  // Takes a token if one is available now; a refusal takes nothing and leaves no debt.
  bool tryAccept();
  // Takes a token unconditionally and returns how long the caller must wait before using it
  // (zero when the bucket had a token).
  Duration reserve();
  // Reserves a token and blocks on the clock until it may be used.
  void wait();

 private:
  Duration reserveLocked(Time now);

  Clock& clock_;
  // Time it takes to earn one token; zero when the bucket is unlimited.
  const Duration tokenInterval_;
  // How far ahead of now the reservations may run before callers have to wait: a full bucket.
  const Duration burstWindow_;

  std::mutex mu_;
  // Only the clock notifies it: wait() has nothing to be woken for but time.
  std::condition_variable_any sleeper_;
  // Guarded by mu_. The instant at which every token handed out so far has been earned back;
  // the bucket is full whenever this is not after now. Tracking one instant instead of a
  // fractional token count keeps the arithmetic exact in integer nanoseconds.
  Time paidUntil_;
};

}  // namespace hpa
