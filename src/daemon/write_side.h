#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/clock.h"
#include "common/log.h"
#include "controller/event_recorder.h"
#include "controller/scale_client.h"
#include "controller/status_writer.h"
#include "controller/written_versions.h"
#include "live/client_set.h"

namespace hpa::daemon {

// Where the controller's writes go: to the API server (scale updates, HPA status, Events), or,
// in shadow mode, nowhere (controller/dry_run.h: recorded as if they succeeded, never sent).
class WriteSide {
 public:
  WriteSide(bool shadow, live::ClientSet& clients, controller::ScaleClient& scales, const std::string& hpaApiVersion,
            controller::WrittenVersions& writtenVersions, Clock& clock, const Logger& logger);
  ~WriteSide();

  controller::ScaleClient& scales() { return *scales_; }
  controller::StatusWriter& status() { return *status_; }
  controller::EventRecorder& events() { return *events_; }
  // Sends the Events still queued (a no-op in shadow mode).
  void stop();

 private:
  std::unique_ptr<controller::ScaleClient> dryRunScales_;
  controller::ScaleClient* scales_;
  std::unique_ptr<controller::StatusWriter> status_;
  std::unique_ptr<controller::EventRecorder> events_;
  std::function<void()> stopEvents_;
};

}  // namespace hpa::daemon
