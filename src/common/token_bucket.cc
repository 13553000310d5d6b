#include "common/token_bucket.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hpa {
namespace {

Duration intervalForRate(double qps) {
  // `!(qps > 0)` also catches NaN.
  if (!(qps > 0) || std::isinf(qps)) return Duration::zero();
  double nanos = std::round(1e9 / qps);
  // A rate so slow that one token would take longer than Duration can hold is clamped instead of
  // overflowing the conversion.
  if (nanos >= static_cast<double>(std::numeric_limits<Duration::rep>::max())) {
    return Duration::max();
  }
  return Duration(static_cast<Duration::rep>(nanos));
}

Duration multiplySaturating(Duration d, int factor) {
  if (d.count() > Duration::max().count() / factor) return Duration::max();
  return d * factor;
}

Time addSaturating(Time t, Duration d) {
  if (t > Time::max() - d) return Time::max();
  return t + d;
}

}  // namespace

TokenBucket::TokenBucket(double qps, int burst, Clock& clock)
    : clock_(clock),
      tokenInterval_(intervalForRate(qps)),
      burstWindow_(multiplySaturating(tokenInterval_, std::max(burst, 1))),
      paidUntil_(clock.now()) {}

bool TokenBucket::tryAccept() {
  std::lock_guard<std::mutex> lock(mu_);
  Time now = clock_.now();
  Time paidUntil = addSaturating(std::max(paidUntil_, now), tokenInterval_);
  if (paidUntil - now > burstWindow_) return false;
  paidUntil_ = paidUntil;
  return true;
}

Duration TokenBucket::reserve() {
  std::lock_guard<std::mutex> lock(mu_);
  return reserveLocked(clock_.now());
}

void TokenBucket::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  Time now = clock_.now();
  Time deadline = addSaturating(now, reserveLocked(now));
  // waitUntil releases mu_ while parked, so other callers can reserve meanwhile.
  while (clock_.now() < deadline) clock_.waitUntil(sleeper_, lock, deadline);
}

Duration TokenBucket::reserveLocked(Time now) {
  paidUntil_ = addSaturating(std::max(paidUntil_, now), tokenInterval_);
  Duration backlog = paidUntil_ - now;
  return backlog > burstWindow_ ? backlog - burstWindow_ : Duration::zero();
}

}  // namespace hpa
