#include "daemon/write_side.h"

#include "adapters/api_clients.h"
#include "adapters/api_event_recorder.h"
#include "adapters/decision_publisher.h"
#include "adapters/dry_run.h"

namespace hpa::daemon {

WriteSide::WriteSide(controller::ControllerMode mode, adapters::ClientSet& clients,
                     controller::ScaleClient& scales, const std::string& hpaApiVersion,
                     controller::StalenessGuard& stalenessGuard,
                     controller::WriteObserver& writeObserver, Clock& clock, const Logger& logger) {
  if (mode == controller::ControllerMode::Shadow) {
    dryRunScales_ = std::make_unique<adapters::DryRunScaleClient>(scales);
    scales_ = dryRunScales_.get();
    status_ = std::make_unique<adapters::DryRunStatusWriter>();
    events_ = std::make_unique<adapters::DiscardingEventRecorder>();
    return;
  }
  scales_ = &scales;
  status_ = std::make_unique<adapters::ApiStatusWriter>(*clients.status, hpaApiVersion,
                                                        &stalenessGuard, &writeObserver);
  auto events = std::make_unique<adapters::ApiEventRecorder>(
      *clients.events, clock, logger.child("events"), &writeObserver);
  stopEvents_ = [recorder = events.get()] { recorder->stop(); };
  events_ = std::move(events);
  decisions_ = std::make_unique<adapters::ApiDecisionPublisher>(
      *clients.decisions, hpaApiVersion, logger.child("decisions"), &writeObserver);
}

WriteSide::~WriteSide() = default;

void WriteSide::stop() {
  if (stopEvents_) stopEvents_();
}

}  // namespace hpa::daemon
