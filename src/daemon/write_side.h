#pragma once

#include <functional>
#include <memory>
#include <string>

#include "adapters/client_set.h"
#include "common/clock.h"
#include "common/log.h"
#include "controller/event_recorder.h"
#include "controller/horizontal_controller.h"
#include "controller/scale_client.h"
#include "controller/staleness_guard.h"
#include "controller/status_writer.h"
#include "controller/write_observer.h"
#include "controls/last_decision.h"

namespace hpa::daemon {

// Where the controller's writes go, by its mode: to the API server (scale updates, HPA status,
// Events, recorded decisions, each reported to `writeObserver`), or, in shadow mode, nowhere
// (adapters/dry_run.h: recorded as if they succeeded, never sent, never reported).
class WriteSide {
 public:
  WriteSide(controller::ControllerMode mode, adapters::ClientSet& clients,
            controller::ScaleClient& scales, const std::string& hpaApiVersion,
            controller::StalenessGuard& stalenessGuard, controller::WriteObserver& writeObserver,
            Clock& clock, const Logger& logger);
  ~WriteSide();

  controller::ScaleClient& scales() { return *scales_; }
  controller::StatusWriter& status() { return *status_; }
  controller::EventRecorder& events() { return *events_; }
  // hpa-controller.io/last-decision writes; null in shadow mode (nothing is recorded).
  controls::DecisionPublisher* decisions() { return decisions_.get(); }
  // Sends the Events still queued (a no-op in shadow mode).
  void stop();

 private:
  std::unique_ptr<controller::ScaleClient> dryRunScales_;
  controller::ScaleClient* scales_;
  std::unique_ptr<controller::StatusWriter> status_;
  std::unique_ptr<controller::EventRecorder> events_;
  std::unique_ptr<controls::DecisionPublisher> decisions_;
  std::function<void()> stopEvents_;
};

}  // namespace hpa::daemon
