#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "api/history.h"
#include "api/hpa.h"
#include "common/clock.h"
#include "common/log.h"
#include "kube/rest_client.h"

namespace hpa::daemon {

// The annotation holding an HPA's AutoscalerHistory (compact JSON), so a restart or a failover
// keeps the stabilization window and behavior history that upstream forgets.
inline constexpr const char* kHistoryAnnotation = "hpa-controller.io/history";

// Reads the history from an HPA's annotation (nullopt when absent or unreadable: a bad value is
// logged and ignored, never trusted).
std::optional<api::AutoscalerHistory> historyFromAnnotation(const api::HorizontalPodAutoscaler& hpa, const Logger& logger);

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
bool mattersForRestart(const api::AutoscalerHistory* persisted, const api::AutoscalerHistory& current);

// Writes histories back with a JSON merge patch of the annotation when mattersForRestart() says
// so: a steady state writes nothing. flush() writes what a failed write left behind, for a
// leader handing over.
class HistoryPersister {
 public:
  HistoryPersister(kube::RestClient& client, std::string hpaApiVersion, Logger logger)
      : client_(client), apiVersion_(std::move(hpaApiVersion)), logger_(std::move(logger)) {}

  void persist(const api::HorizontalPodAutoscaler& hpa, const api::AutoscalerHistory& history);
  // Writes every history offered to persist() that mattersForRestart() against its persisted
  // copy (a write that failed); returns how many were written.
  int flush();
  void forget(const std::string& key);

 private:
  struct Offered {
    std::string namespace_;
    std::string name;
    api::AutoscalerHistory history;
  };
  bool write(const std::string& ns, const std::string& name, const api::AutoscalerHistory& history);

  kube::RestClient& client_;
  std::string apiVersion_;
  Logger logger_;
  std::mutex mu_;
  std::map<std::string, api::AutoscalerHistory> written_;  // what is persisted, by HPA key
  std::map<std::string, Offered> offered_;  // the latest history of each HPA
};

}  // namespace hpa::daemon
