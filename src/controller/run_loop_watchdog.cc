#include "controller/run_loop_watchdog.h"

#include <algorithm>

namespace hpa::controller {

Duration stallThreshold(Duration syncPeriod) {
  return std::max<Duration>(kMinStallThreshold, syncPeriod * kStallThresholdSyncPeriods);
}

RunLoopWatchdog::RunLoopWatchdog(const Clock& clock, int workers)
    : clock_(clock), slots_(static_cast<std::size_t>(std::max(workers, 0))) {}

RunLoopWatchdog::Hold::~Hold() {
  if (!watchdog_) return;
  std::lock_guard<std::mutex> lock(watchdog_->mu_);
  watchdog_->slots_[static_cast<std::size_t>(worker_)].since.reset();
}

RunLoopWatchdog::Hold RunLoopWatchdog::took(int worker, const std::string& key) {
  const Time now = clock_.now();
  std::lock_guard<std::mutex> lock(mu_);
  Slot& slot = slots_.at(static_cast<std::size_t>(worker));
  slot.since = now;
  slot.key = key;  // reuses the slot's buffer: no allocation for keys of a usual length
  return Hold(*this, worker);
}

const RunLoopWatchdog::Slot* RunLoopWatchdog::oldestHoldLocked() const {
  const Slot* oldest = nullptr;
  for (const Slot& slot : slots_) {
    if (slot.since && (!oldest || *slot.since < *oldest->since)) oldest = &slot;
  }
  return oldest;
}

Duration RunLoopWatchdog::stalledFor(std::optional<Time> keysWaitingSince) const {
  const Time now = clock_.now();
  Duration stalled = Duration::zero();
  if (keysWaitingSince) stalled = std::max<Duration>(stalled, now - *keysWaitingSince);
  std::lock_guard<std::mutex> lock(mu_);
  if (const Slot* oldest = oldestHoldLocked())
    stalled = std::max<Duration>(stalled, now - *oldest->since);
  return stalled;
}

Status RunLoopWatchdog::check(std::optional<Time> keysWaitingSince, std::size_t readyKeys,
                              Duration threshold) const {
  const Time now = clock_.now();
  const Duration waited = keysWaitingSince ? now - *keysWaitingSince : Duration::zero();
  Duration held = Duration::zero();
  std::string heldKey;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (const Slot* oldest = oldestHoldLocked()) {
      held = now - *oldest->since;
      heldKey = oldest->key;
    }
  }
  if (std::max(held, waited) <= threshold) return Status();
  if (held >= waited) {
    return Error::format("stalled: a worker has held {} for {} (limit {})", heldKey,
                         formatGoDuration(held), formatGoDuration(threshold));
  }
  return Error::format("stalled: {} keys ready, none taken for {} (limit {})", readyKeys,
                       formatGoDuration(waited), formatGoDuration(threshold));
}

}  // namespace hpa::controller
