#include "workqueue/rate_limiter.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <utility>

namespace hpa::workqueue {

ItemExponentialFailureRateLimiter::ItemExponentialFailureRateLimiter(Duration baseDelay,
                                                                     Duration maxDelay)
    : baseDelay_(std::max(baseDelay, Duration::zero())), maxDelay_(maxDelay) {}

Duration ItemExponentialFailureRateLimiter::when(const std::string& key) {
  int exponent;
  {
    std::lock_guard<std::mutex> lock(mu_);
    int& failures = failures_[key];
    exponent = failures;
    if (failures < std::numeric_limits<int>::max()) ++failures;
  }
  // base * 2^exponent, computed without overflowing: a product that would not fit is capped.
  const Duration::rep base = baseDelay_.count();
  constexpr int kRepBits = std::numeric_limits<Duration::rep>::digits;
  if (base == 0) return std::min(Duration::zero(), maxDelay_);
  if (exponent >= kRepBits || base > (Duration::max().count() >> exponent)) return maxDelay_;
  return std::min(Duration(base << exponent), maxDelay_);
}

void ItemExponentialFailureRateLimiter::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  failures_.erase(key);
}

int ItemExponentialFailureRateLimiter::numRequeues(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

BucketRateLimiter::BucketRateLimiter(double qps, int burst, Clock& clock)
    : bucket_(qps, burst, clock) {}

Duration BucketRateLimiter::when(const std::string&) { return bucket_.reserve(); }
void BucketRateLimiter::forget(const std::string&) {}
int BucketRateLimiter::numRequeues(const std::string&) { return 0; }

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<RateLimiterPtr> limiters)
    : limiters_(std::move(limiters)) {}

Duration MaxOfRateLimiter::when(const std::string& key) {
  Duration longest = Duration::zero();
  for (const auto& limiter : limiters_) longest = std::max(longest, limiter->when(key));
  return longest;
}

void MaxOfRateLimiter::forget(const std::string& key) {
  for (const auto& limiter : limiters_) limiter->forget(key);
}

int MaxOfRateLimiter::numRequeues(const std::string& key) {
  int most = 0;
  for (const auto& limiter : limiters_) most = std::max(most, limiter->numRequeues(key));
  return most;
}

Duration FixedIntervalRateLimiter::when(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = perKey_.find(key);
  return it == perKey_.end() ? interval_ : it->second;
}
void FixedIntervalRateLimiter::forget(const std::string&) {}
int FixedIntervalRateLimiter::numRequeues(const std::string&) { return 1; }

void FixedIntervalRateLimiter::setInterval(const std::string& key,
                                           std::optional<Duration> interval) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!interval || *interval == interval_) {
    perKey_.erase(key);
  } else {
    perKey_.insert_or_assign(key, *interval);
  }
}

std::size_t FixedIntervalRateLimiter::keysWithOwnInterval() const {
  std::lock_guard<std::mutex> lock(mu_);
  return perKey_.size();
}

RateLimiterPtr defaultControllerRateLimiter(Clock& clock) {
  // client-go's values: 5 ms doubles to reach 1000 s after about 18 failures of one key; the
  // bucket bounds the retries of all keys together.
  constexpr Duration kBaseDelay = std::chrono::milliseconds(5);
  constexpr Duration kMaxDelay = std::chrono::seconds(1000);
  constexpr double kRetriesPerSecond = 10;
  constexpr int kRetryBurst = 100;
  std::vector<RateLimiterPtr> limiters;
  limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(kBaseDelay, kMaxDelay));
  limiters.push_back(std::make_unique<BucketRateLimiter>(kRetriesPerSecond, kRetryBurst, clock));
  return std::make_unique<MaxOfRateLimiter>(std::move(limiters));
}

}  // namespace hpa::workqueue
