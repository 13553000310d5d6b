#include "workqueue/delaying_queue.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace hpa::workqueue {
namespace {

// client-go's maxWait: insurance against a missed wake-up. Checking every 10 s is cheap, and no
// due key then sits unnoticed for longer than that.
constexpr Duration kMaxWait = std::chrono::seconds(10);

Time addSaturating(Time t, Duration d) {
  if (d > Duration::zero() && t > Time::max() - d) return Time::max();
  return t + d;
}

}  // namespace

DelayingQueue::DelayingQueue(Clock& clock)
    : Queue(clock), clock_(clock), waitingThread_([this] { waitingLoop(); }) {}

DelayingQueue::~DelayingQueue() {
  stopWaitingLoop();
  waitingThread_.join();
}

void DelayingQueue::addAfter(const std::string& key, Duration delay) {
  if (shuttingDown()) return;
  if (delay <= Duration::zero()) {
    add(key);
    return;
  }
  Time readyAt = addSaturating(clock_.now(), delay);
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  auto known = slotByKey_.find(key);
  if (known != slotByKey_.end()) {
    if (readyAt >= known->second.readyAt) return;
    waiting_.erase(known->second);
    slotByKey_.erase(known);
  }
  WaitingSlot slot{readyAt, nextArrival_++};
  waiting_.emplace(slot, key);
  slotByKey_.emplace(key, slot);
  // Only a new earliest deadline changes how long the loop should sleep.
  if (waiting_.begin()->first.arrival == slot.arrival) wake_.notify_one();
}

void DelayingQueue::shutDown() {
  Queue::shutDown();
  stopWaitingLoop();
}

void DelayingQueue::shutDownWithDrain() {
  // Stop the loop first: the drain may block for as long as the workers take.
  stopWaitingLoop();
  Queue::shutDownWithDrain();
}

void DelayingQueue::stopWaitingLoop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
  waiting_.clear();
  slotByKey_.clear();
  wake_.notify_all();
}

void DelayingQueue::waitingLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    Time now = clock_.now();
    std::vector<std::string> due;
    while (!waiting_.empty() && waiting_.begin()->first.readyAt <= now) {
      auto first = waiting_.begin();
      slotByKey_.erase(first->second);
      due.push_back(std::move(first->second));
      waiting_.erase(first);
    }
    if (!due.empty()) {
      // add() takes the queue's lock; releasing ours first keeps addAfter() callers unblocked and
      // the two locks never nested.
      lock.unlock();
      for (const auto& key : due) add(key);
      lock.lock();
      continue;
    }
    Time deadline = addSaturating(now, kMaxWait);
    if (!waiting_.empty()) deadline = std::min(deadline, waiting_.begin()->first.readyAt);
    clock_.waitUntil(wake_, lock, deadline);
  }
}

}  // namespace hpa::workqueue
