#pragma once

#include <map>
#include <memory>
#include <string>

#include "adapters/dry_run.h"
#include "api/history.h"
#include "api/hpa.h"
#include "controller/horizontal_controller.h"
#include "explain/explain.h"
#include "explain/recorded_history.h"
#include "explain/stopped_clock.h"

namespace hpa::explain {

// The controller as `explain` runs it, offline and live: the given read side (listers, metrics,
// scale reads), a write side that records instead of writing, the clock stopped at `now` and
// per-pod accounts on. Without `routes`, a metric that names its source is read from `metrics`
// (a snapshot holds each metric's values by name, whichever adapter served them). Everything the
// decision depends on is set up through it, so a snapshot and the cluster it came from are
// explained the same way.
class Explainer {
 public:
  Explainer(controller::HpaLister& hpas, controller::PodLister& pods,
            metricsclient::MetricsClient& metrics, controller::ScaleClient& scaleReads,
            const ExplainOptions& options, const controls::OwnerLookup* owners = nullptr,
            metricsclient::MetricRoutes* routes = nullptr);

  // An HPA of the same cluster that counts in the ambiguous-selector check, as if the daemon
  // had reconciled it before (reads its target's Scale).
  void learn(const api::HorizontalPodAutoscaler& hpa) { controller_.learnSelector(hpa); }
  // The history the controller would hold for `hpa` (e.g. restored from its annotation).
  void giveHistory(const api::HorizontalPodAutoscaler& hpa, api::AutoscalerHistory history);
  // One reconcile of `hpa` (which the HPA lister must return).
  Explanation explain(const api::HorizontalPodAutoscaler& hpa);

 private:
  Time now_;
  adapters::DryRunScaleClient scales_;
  adapters::DryRunStatusWriter statusWriter_;
  adapters::DiscardingEventRecorder events_;
  StoppedClock clock_;
  std::unique_ptr<metricsclient::MetricRoutes> sameClient_;  // without `routes`
  std::unique_ptr<RecordedHistory> forecastHistory_;         // with options.forecastHistory
  controller::HorizontalController controller_;
  std::map<std::string, bool> historyGiven_;
};

}  // namespace hpa::explain
