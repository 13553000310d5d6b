#include "workqueue/queue.h"

namespace hpa::workqueue {

// Every waiter is woken after the lock is released: a woken worker does not block on the lock
// at once, and a waiter that cannot run (a stopped thread: a debugger's, a test's fault) can hold
// up only the thread that woke it, not every user of the queue through the lock.
void Queue::add(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shuttingDown_) return;
    if (!dirty_.insert(key).second) return;
    // A key being processed waits in dirty_ until done(): handing it out now would let two
    // workers process it at once.
    if (processing_.count(key) != 0) return;
    enqueueLocked(key);
  }
  keyAvailable_.notify_one();
}

void Queue::addIfIdle(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shuttingDown_ || processing_.count(key) != 0) return;
    if (!dirty_.insert(key).second) return;
    enqueueLocked(key);
  }
  keyAvailable_.notify_one();
}

std::optional<std::string> Queue::get() {
  std::unique_lock<std::mutex> lock(mu_);
  keyAvailable_.wait(lock, [this] { return !queue_.empty() || shuttingDown_; });
  if (queue_.empty()) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  // A take is progress: the keys behind it wait from now on.
  if (clock_) waitingSince_ = queue_.empty() ? std::nullopt : std::optional<Time>(clock_->now());
  dirty_.erase(key);
  processing_.insert(key);
  return key;
}

void Queue::done(const std::string& key) {
  bool requeued = false;
  bool idle = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (processing_.erase(key) == 0) return;
    // Re-queued even while shutting down, as client-go does: the add happened before the
    // shut-down and get() still hands out what is queued.
    requeued = dirty_.count(key) != 0;
    if (requeued) enqueueLocked(key);
    idle = processing_.empty();
  }
  if (requeued) keyAvailable_.notify_one();
  if (idle) processingFinished_.notify_all();
}

std::size_t Queue::len() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

std::size_t Queue::inFlight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return processing_.size();
}

std::optional<Time> Queue::waitingSince() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waitingSince_;
}

void Queue::enqueueLocked(const std::string& key) {
  if (queue_.empty() && clock_) waitingSince_ = clock_->now();
  queue_.push_back(key);
}

void Queue::shutDown() { beginShutDown(/*drain=*/false); }

void Queue::shutDownWithDrain() {
  beginShutDown(/*drain=*/true);
  std::unique_lock<std::mutex> lock(mu_);
  processingFinished_.wait(lock, [this] { return processing_.empty() || !drain_; });
}

bool Queue::shuttingDown() const {
  std::lock_guard<std::mutex> lock(mu_);
  return shuttingDown_;
}

void Queue::beginShutDown(bool drain) {
  std::lock_guard<std::mutex> lock(mu_);
  shuttingDown_ = true;
  drain_ = drain;
  keyAvailable_.notify_all();
  // Lets a shutDown() that follows shutDownWithDrain() release the draining caller.
  processingFinished_.notify_all();
}

}  // namespace hpa::workqueue
