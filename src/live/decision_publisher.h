#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "api/hpa.h"
#include "common/log.h"
#include "controller/last_decision.h"
#include "kube/rest_client.h"

namespace hpa::live {

// Writes hpa-controller.io/last-decision with a JSON merge patch of the annotation when the
// decision differs from the one stored (our last write, else the HPA's annotation as cached), so
// a steady HPA writes nothing; removes the annotation of an HPA that stopped recording.
class ApiDecisionPublisher final : public controller::DecisionPublisher {
 public:
  ApiDecisionPublisher(kube::RestClient& client, std::string hpaApiVersion, Logger logger)
      : client_(client), apiVersion_(std::move(hpaApiVersion)), logger_(std::move(logger)) {}

  void publish(const api::HorizontalPodAutoscaler& hpa, const std::optional<nlohmann::json>& decision) override;
  void forget(const std::string& key) override;

 private:
  bool patch(const api::HorizontalPodAutoscaler& hpa, const nlohmann::json& value);

  kube::RestClient& client_;
  std::string apiVersion_;
  Logger logger_;
  std::mutex mu_;
  // What is stored, by HPA key: our last write, or the annotation as first read (parsed once).
  std::map<std::string, nlohmann::json> stored_;
};

}  // namespace hpa::live
