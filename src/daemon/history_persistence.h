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

// Writes histories back with a JSON merge patch of the annotation, only when they changed:
// at once when the replica counts or events changed, and at most once a minute when only
// timestamps moved (each sync re-stamps a recommendation).
class HistoryPersister {
 public:
  HistoryPersister(kube::RestClient& client, std::string hpaApiVersion, Clock& clock, Logger logger)
      : client_(client), apiVersion_(std::move(hpaApiVersion)), clock_(clock), logger_(std::move(logger)) {}

  void persist(const api::HorizontalPodAutoscaler& hpa, const api::AutoscalerHistory& history);
  void forget(const std::string& key);

 private:
  struct Written {
    api::AutoscalerHistory history;
    Time at;
  };
  kube::RestClient& client_;
  std::string apiVersion_;
  Clock& clock_;
  Logger logger_;
  std::mutex mu_;
  std::map<std::string, Written> written_;
};

}  // namespace hpa::daemon
