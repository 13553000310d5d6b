#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/log.h"
#include "controller/event_recorder.h"
#include "controller/write_observer.h"
#include "kube/rest_client.h"

namespace hpa::adapters {

// core/v1 Events with source component horizontal-pod-autoscaler, sent by a thread of their own
// as client-go's broadcaster sends them: event() only queues, so a reconcile never waits for
// the events' rate budget, and when the queue is full (kMaxQueued, client-go's 1,000) new
// events are dropped and counted. Repeats of the same event (object, type, reason, message)
// within 10 minutes update the existing Event's count and lastTimestamp, as client-go's event
// correlator does, instead of creating new ones.
class ApiEventRecorder final : public controller::EventRecorder {
 public:
  static constexpr std::size_t kMaxQueued = 1000;

  // `writes` (optional) is told of each create's and patch's outcome.
  ApiEventRecorder(kube::RestClient& client, Clock& clock, Logger logger,
                   controller::WriteObserver* writes = nullptr);
  ~ApiEventRecorder() override;

  void event(const api::HorizontalPodAutoscaler& hpa, const std::string& type,
             const std::string& reason, const std::string& message) override;

  // Sends what is queued (for at most `deadline`), then stops the sender.
  void stop(Duration deadline = std::chrono::seconds(5));
  std::uint64_t dropped() const;

 private:
  struct Pending {
    std::string ns, name, uid, apiVersion, resourceVersion;
    std::string type, reason, message;
    Time at;
  };
  struct Seen {
    std::string name;  // the Event object's name
    int count = 0;
    Time last;
  };
  void run();
  void send(const Pending& e);

  kube::RestClient& client_;
  Clock& clock_;
  Logger logger_;
  controller::WriteObserver* writes_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;
  bool stopping_ = false;
  Time stopBy_{};
  std::uint64_t dropped_ = 0;
  std::map<std::string, Seen> seen_;  // only touched by the sender thread
  std::thread sender_;
};

}  // namespace hpa::adapters
