#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "api/hpa.h"
#include "common/clock.h"
#include "common/log.h"
#include "controller/horizontal_controller.h"
#include "informer/informer.h"
#include "shadow/cause.h"
#include "shadow/comparison.h"
#include "shadow/shadow_observer.h"
#include "shadow/their_window.h"

namespace hpa::shadow {

// What one comparison found: their decision, ours, and where they differ.
struct ComparisonResult {
  StatusDecision theirs;
  StatusDecision ours;
  std::vector<Divergence> divergences;
  CauseFinding cause;
  report::ReconcileReport report;  // our decision, step by step
  // The HPA's controls that make our decision differ from theirs by design
  // (controls::decisionChangingControls): when any, the comparison is not counted, and the log
  // says so once per change.
  std::vector<std::string> notComparable;
};

// Shadow mode's comparison: each time the HPA watch shows a status another controller wrote
// (kube-controller-manager's decision), decides the same HPA from what that controller decided
// from — the spec, the status it replaced, the target's replica count it recorded — with the
// pods and metrics cached or read at that moment, and compares desired replicas and the
// AbleToScale, ScalingActive and ScalingLimited conditions. The decision keeps nothing (the
// controller's history is read, not changed) and the controller's dependencies must be
// dry-run ones: shadow mode writes nothing. Our decision stabilizes over the other controller's
// window as its writes show it (TheirWindow), and each comparison gets its cause (findCause).
class ShadowComparer {
 public:
  // `active`: whether to compare now (the leader compares; a standby would count twice).
  ShadowComparer(controller::HorizontalController& controller, ShadowObserver& observer,
                 Clock& clock, Logger logger, std::function<bool()> active);
  ~ShadowComparer();

  // Before the informer starts: each status write it shows is compared; each HPA it adds or
  // deletes is told to the observer.
  void registerHandlers(informer::Informer<api::HorizontalPodAutoscaler>& hpas);
  void start();
  void stop();

  // One comparison of `after`'s status (their decision, observed at `at`) with ours from the
  // same inputs.
  ComparisonResult compare(const api::HorizontalPodAutoscaler& before,
                           const api::HorizontalPodAutoscaler& after, Time at);

 private:
  struct Pending {
    std::shared_ptr<const api::HorizontalPodAutoscaler> before;
    std::shared_ptr<const api::HorizontalPodAutoscaler> after;
    Time at;
  };
  void worker();
  // The recommendations to decide `key` with at `at`: our own before their first observed
  // decision (unless that was their first ever: then only the size it read), theirs as their
  // writes show them after it; and how long we have followed theirs.
  std::vector<api::TimestampedRecommendation> windowFor(const std::string& key,
                                                        const api::HorizontalPodAutoscaler& hpa,
                                                        Time at, bool theirFirstDecision,
                                                        Duration& followed);
  void observedTheirs(const std::string& key, Time at, std::optional<std::int32_t> proposal,
                      bool theirFirstDecision);
  void report(const api::HorizontalPodAutoscaler& hpa, const ComparisonResult& result);
  // Whether `controls` ("" when comparable) is news for `key`: the not-comparable line is logged
  // once per change.
  bool notComparableChanged(const std::string& key, const std::string& controls);

  controller::HorizontalController& controller_;
  ShadowObserver& observer_;
  Clock& clock_;
  Logger logger_;
  std::function<bool()> active_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  // Every observed write in order: each is a decision of its own, from the status before it.
  std::deque<Pending> pending_;
  std::thread worker_;
  std::mutex windowsMu_;  // the worker compares, the informer forgets
  std::map<std::string, TheirWindow> windows_;
  std::mutex notComparableMu_;                        // the worker reports, the informer forgets
  std::map<std::string, std::string> notComparable_;  // per HPA, the controls last logged
};

}  // namespace hpa::shadow
