#pragma once

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "api/hpa.h"
#include "common/log.h"
#include "controller/write_observer.h"
#include "controls/last_decision.h"
#include "kube/rest_client.h"

namespace hpa::adapters {

// Writes hpa-controller.io/last-decision with a JSON merge patch of the annotation when the
// decision differs from the one stored (our last write, else the HPA's annotation as cached), so
// a steady HPA writes nothing and costs a comparison of plain data (the JSON is built only for a
// change); removes the annotation of an HPA that stopped recording.
class ApiDecisionPublisher final : public controls::DecisionPublisher {
 public:
  // `writes` (optional) is told of each patch's outcome.
  ApiDecisionPublisher(kube::RestClient& client, std::string hpaApiVersion, Logger logger,
                       controller::WriteObserver* writes = nullptr)
      : client_(client),
        apiVersion_(std::move(hpaApiVersion)),
        logger_(std::move(logger)),
        writes_(writes) {}

  void publish(const api::HorizontalPodAutoscaler& hpa,
               const std::optional<controls::LastDecision>& decision, Time now) override;
  void forget(const std::string& key) override;

 private:
  bool patch(const api::HorizontalPodAutoscaler& hpa, const nlohmann::json& value);

  kube::RestClient& client_;
  std::string apiVersion_;
  Logger logger_;
  controller::WriteObserver* writes_;
  std::mutex mu_;
  struct Stored {
    std::optional<controls::LastDecision> written;  // our last write: compared every sync
    std::optional<nlohmann::json> annotation;  // else the annotation as first read (parsed once)
  };
  std::map<std::string, Stored> stored_;  // by HPA key
};

}  // namespace hpa::adapters
