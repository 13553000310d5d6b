#pragma once

#include <string>

#include "common/clock.h"
#include "workqueue/delaying_queue.h"
#include "workqueue/rate_limiter.h"

namespace hpa::workqueue {

// A DelayingQueue whose retries are paced by a RateLimiter (client-go's RateLimitingInterface).
class RateLimitingQueue : public DelayingQueue {
 public:
  RateLimitingQueue(Clock& clock, RateLimiterPtr limiter);

  // Adds `key` after the delay the limiter asks for, counting one more retry of it.
  void addRateLimited(const std::string& key);
  // Tells the limiter to stop tracking `key`. A delayed add already waiting still happens.
  void forget(const std::string& key);
  int numRequeues(const std::string& key);

 private:
  const RateLimiterPtr limiter_;
};

}  // namespace hpa::workqueue
