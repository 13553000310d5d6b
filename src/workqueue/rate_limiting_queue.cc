#include "workqueue/rate_limiting_queue.h"

#include <cassert>
#include <utility>

namespace hpa::workqueue {

RateLimitingQueue::RateLimitingQueue(Clock& clock, RateLimiterPtr limiter)
    : DelayingQueue(clock), limiter_(std::move(limiter)) {
  assert(limiter_ != nullptr);
}

void RateLimitingQueue::addRateLimited(const std::string& key) {
  addAfter(key, limiter_->when(key));
}

void RateLimitingQueue::forget(const std::string& key) { limiter_->forget(key); }

int RateLimitingQueue::numRequeues(const std::string& key) { return limiter_->numRequeues(key); }

}  // namespace hpa::workqueue
