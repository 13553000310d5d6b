#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "api/history.h"
#include "api/hpa.h"
#include "common/clock.h"
#include "common/log.h"
#include "controller/history_annotation.h"
#include "controller/write_observer.h"
#include "kube/rest_client.h"

namespace hpa::adapters {

// Writes histories back with a JSON merge patch of the annotation when mattersForRestart() says
// so: a steady state writes nothing. flush() writes what a failed write left behind, for a
// leader handing over.
class ApiHistoryPersister final : public controller::HistoryPersister {
 public:
  // `writes` (optional) is told of each patch's outcome.
  ApiHistoryPersister(kube::RestClient& client, std::string hpaApiVersion, Logger logger,
                      controller::WriteObserver* writes = nullptr)
      : client_(client),
        apiVersion_(std::move(hpaApiVersion)),
        logger_(std::move(logger)),
        writes_(writes) {}

  void persist(const api::HorizontalPodAutoscaler& hpa,
               const api::AutoscalerHistory& history) override;
  // Writes every history offered to persist() that mattersForRestart() against its persisted
  // copy (a write that failed); returns how many were written.
  int flush() override;
  void forget(const std::string& key) override;

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
  controller::WriteObserver* writes_;
  std::mutex mu_;
  std::map<std::string, api::AutoscalerHistory> written_;  // what is persisted, by HPA key
  std::map<std::string, Offered> offered_;                 // the latest history of each HPA
};

}  // namespace hpa::adapters
