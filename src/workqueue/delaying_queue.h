#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "common/clock.h"
#include "common/time.h"
#include "workqueue/queue.h"

namespace hpa::workqueue {

// A Queue that can also add a key after a delay (client-go's DelayingInterface), so that a
// failing key is retried later instead of in a hot loop. A background thread moves due keys
// into the queue; it is started by the constructor and joined by the destructor. All waiting
// goes through the injected Clock, so tests drive the delays with a fake clock.
class DelayingQueue : public Queue {
 public:
  explicit DelayingQueue(Clock& clock);
  ~DelayingQueue() override;

  // Adds `key` once `delay` has passed; a non-positive delay adds it now. If the key is already
  // waiting, only an earlier deadline replaces the current one (the earliest request wins).
  // Ignored once the queue is shutting down.
  void addAfter(const std::string& key, Duration delay);

  // Both also drop the keys still waiting and stop the background thread.
  void shutDown() override;
  void shutDownWithDrain() override;

 private:
  // Waiting keys ordered by deadline, then by arrival, so keys due together keep their order.
  struct WaitingSlot {
    Time readyAt;
    std::uint64_t arrival;
    bool operator<(const WaitingSlot& other) const {
      return readyAt != other.readyAt ? readyAt < other.readyAt : arrival < other.arrival;
    }
  };

  void stopWaitingLoop();
  void waitingLoop();

  Clock& clock_;
  std::mutex mu_;
  // Wakes the waiting loop when a key starts waiting or the loop must stop.
  std::condition_variable_any wake_;

  // Everything below is guarded by mu_.
  std::map<WaitingSlot, std::string> waiting_;
  std::unordered_map<std::string, WaitingSlot> slotByKey_;
  std::uint64_t nextArrival_ = 0;
  bool stopping_ = false;

  // Declared last so that it starts after everything it uses has been built.
  std::thread waitingThread_;
};

}  // namespace hpa::workqueue
