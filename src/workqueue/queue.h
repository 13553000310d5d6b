#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>

#include "common/clock.h"

namespace hpa::workqueue {

// A work queue of string keys with client-go's workqueue contract:
//  * Fair: keys are handed out in the order they were added.
//  * Stingy: a key added several times before a worker takes it is handed out once; a key is
//    never handed to two workers at once; a key added while a worker processes it is queued
//    again only when that worker calls done().
// Thread-safe. Waits here have no deadline, so they need no clock; a queue given one also tells
// since when its keys have waited for a worker (waitingSince()).
class Queue {
 public:
  Queue() = default;
  explicit Queue(const Clock& clock) : clock_(&clock) {}
  virtual ~Queue() = default;
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  // Marks `key` as needing processing. Ignored once the queue is shutting down.
  void add(const std::string& key);
  // Blocks until a key is available and hands it to the caller, who must call done(key) when
  // finished. After a shut-down the keys still queued are handed out first; then it returns
  // nullopt, the worker's signal to exit.
  std::optional<std::string> get();
  // As add(), unless a worker is processing `key`: that worker decides whether it comes back
  // (so a key is not processed twice in a row for one reason).
  void addIfIdle(const std::string& key);
  // Ends the processing of `key`; if it was added meanwhile, it is queued again. A key that is
  // not being processed is ignored (client-go would queue a duplicate).
  void done(const std::string& key);
  // Number of keys waiting to be handed out (not those being processed). Informational only.
  std::size_t len() const;
  // Number of keys handed out and not yet done(). Informational only.
  std::size_t inFlight() const;
  // Since when keys have waited for a worker with none taken: the later of the instant the queue
  // last went from empty to holding a key and the last get() that left keys behind it. nullopt
  // while no key waits, and always for a queue built without a clock. A run loop whose workers
  // stopped taking keys shows here, however long the queue was idle before.
  std::optional<Time> waitingSince() const;

  // Stops accepting keys and wakes every blocked get(); does not wait for workers.
  virtual void shutDown();
  // As shutDown(), then waits until every key handed out has been done(). Workers must keep
  // calling done() during the drain. A concurrent shutDown() ends the wait early.
  virtual void shutDownWithDrain();
  bool shuttingDown() const;

 private:
  void beginShutDown(bool drain);
  // Appends `key` to queue_ (mu_ held), starting the wait when the queue was empty.
  void enqueueLocked(const std::string& key);

  const Clock* clock_ = nullptr;

  mutable std::mutex mu_;
  std::condition_variable_any keyAvailable_;
  std::condition_variable_any processingFinished_;

  // Everything below is guarded by mu_.
  // Order in which keys are handed out; every key here is also in dirty_ and not in processing_.
  std::deque<std::string> queue_;
  // Keys that need processing, whether queued or waiting for their current processing to end.
  std::unordered_set<std::string> dirty_;
  // Keys handed out by get() and not yet done().
  std::unordered_set<std::string> processing_;
  bool shuttingDown_ = false;
  bool drain_ = false;
  std::optional<Time> waitingSince_;  // set while queue_ is not empty (with a clock)
};

}  // namespace hpa::workqueue
