#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/clock.h"
#include "controller/event_recorder.h"
#include "controller/scale_client.h"
#include "controller/status_writer.h"

namespace hpa::explain {

// The controller's write-side dependencies for `explain`, offline and live: nothing is written
// anywhere; what the controller would write is recorded (and is in the reconcile report).

// A clock stopped at the decision's "now".
class StoppedClock final : public Clock {
 public:
  explicit StoppedClock(Time t) : t_(t) {}
  Time now() const override { return t_; }
  void waitUntil(std::condition_variable_any&, std::unique_lock<std::mutex>&, Time) override {}
  void sleepFor(Duration) override {}

 private:
  Time t_;
};

class RecordingStatusWriter final : public controller::StatusWriter {
 public:
  Result<api::HorizontalPodAutoscaler> updateStatus(const api::HorizontalPodAutoscaler& hpa) override {
    written_ = hpa;
    return hpa;
  }
  const std::optional<api::HorizontalPodAutoscaler>& written() const { return written_; }

 private:
  std::optional<api::HorizontalPodAutoscaler> written_;
};

// Events are part of the reconcile report already; nothing to send.
class DiscardingEventRecorder final : public controller::EventRecorder {
 public:
  void event(const api::HorizontalPodAutoscaler&, const std::string&, const std::string&, const std::string&) override {}
};

// Reads the Scale through `reads`; an update is recorded as if it succeeded and never sent.
class RecordingScaleClient final : public controller::ScaleClient {
 public:
  explicit RecordingScaleClient(controller::ScaleClient& reads) : reads_(reads) {}
  Result<std::vector<controller::GroupVersionResource>> mappingsFor(const std::string& group,
                                                                    const std::string& kind) override {
    return reads_.mappingsFor(group, kind);
  }
  Result<api::Scale> getScale(const std::string& ns, const controller::GroupVersionResource& resource,
                              const std::string& name) override {
    return reads_.getScale(ns, resource, name);
  }
  Result<api::Scale> updateScale(const std::string& ns, const controller::GroupVersionResource&,
                                 const api::Scale& scale) override {
    updated_[ns + "/" + scale.metadata.name] = scale;
    return scale;
  }
  // The Scale the controller would have PUT for the target `ns/name`, if any.
  std::optional<api::Scale> updated(const std::string& ns, const std::string& name) const {
    auto it = updated_.find(ns + "/" + name);
    return it == updated_.end() ? std::nullopt : std::optional<api::Scale>(it->second);
  }

 private:
  controller::ScaleClient& reads_;
  std::map<std::string, api::Scale> updated_;
};

}  // namespace hpa::explain
