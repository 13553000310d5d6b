#pragma once

#include <optional>
#include <string>

#include "api/history.h"
#include "api/hpa.h"
#include "common/log.h"
#include "common/time.h"

namespace hpa::controller {

// The annotation holding an HPA's AutoscalerHistory (compact JSON), so a restart or a failover
// keeps the stabilization window and behavior history that upstream forgets.
inline constexpr const char* kHistoryAnnotation = "hpa-controller.io/history";

// Reads the history from an HPA's annotation (nullopt when absent or unreadable: a bad value is
// logged and ignored, never trusted).
std::optional<api::AutoscalerHistory> historyFromAnnotation(const api::HorizontalPodAutoscaler& hpa,
                                                            const Logger& logger);

// The history restored after a restart or a failover: the persisted one, with its newest
// recommendation taken as current at `now`. Histories are persisted only when their content
// changes (see HistoryPersister), so the newest recommendation's persisted timestamp is when
// that value first appeared; the controller kept recommending it until it stopped, so treating
// it as current keeps the downscale stabilization window from ending early.
api::AutoscalerHistory restoredAt(api::AutoscalerHistory history, Time now);

// Whether `current` says something a restart needs that `persisted` does not: different scale
// events, or a newest recommendation of a different value. A steady HPA re-stamps one
// recommendation per sync; that alone never matters, since restoredAt() takes the newest one as
// current. With nothing persisted yet, a history whose recommendations all hold one value and
// that has no events matters neither: a restart seeds the same from the target's replicas.
bool mattersForRestart(const api::AutoscalerHistory* persisted,
                       const api::AutoscalerHistory& current);

// Where the run loop hands each HPA's history after a reconcile, so that a successor restores it.
class HistoryPersister {
 public:
  virtual ~HistoryPersister() = default;
  // Offers the history of `hpa` after a reconcile; written when mattersForRestart() says so.
  virtual void persist(const api::HorizontalPodAutoscaler& hpa,
                       const api::AutoscalerHistory& history) = 0;
  // Writes every offered history that is not persisted yet (a write that failed); returns how many.
  virtual int flush() = 0;
  virtual void forget(const std::string& key) = 0;
};

}  // namespace hpa::controller
