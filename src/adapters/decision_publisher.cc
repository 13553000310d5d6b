#include "adapters/decision_publisher.h"

#include <fmt/format.h>

namespace hpa::adapters {

void ApiDecisionPublisher::publish(const api::HorizontalPodAutoscaler& hpa,
                                   const std::optional<controls::LastDecision>& decision,
                                   Time now) {
  const std::string key = api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
  const auto& annotations = hpa.metadata.annotations;
  const auto cached = annotations.find(controls::kLastDecisionAnnotation);
  if (!decision) {
    if (cached == annotations.end()) return;
    if (patch(hpa, nullptr)) forget(key);
    return;
  }
  std::optional<nlohmann::json> document;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& stored = stored_[key];
    if (stored.written) {
      // Our own last write: it wins over a cache that may not show it yet.
      if (*stored.written == *decision) return;
    } else {
      if (!stored.annotation && cached != annotations.end()) {
        stored.annotation =
            nlohmann::json::parse(cached->second, nullptr, /*allow_exceptions=*/false);
      }
      document = controls::lastDecisionJson(*decision, now);
      if (stored.annotation && controls::sameDecision(*stored.annotation, *document)) {
        stored.written = *decision;  // what a previous run wrote is this very decision
        return;
      }
    }
  }
  if (!document) document = controls::lastDecisionJson(*decision, now);
  if (!patch(hpa, document->dump())) return;
  std::lock_guard<std::mutex> lock(mu_);
  stored_[key] = Stored{*decision, std::nullopt};
}

bool ApiDecisionPublisher::patch(const api::HorizontalPodAutoscaler& hpa,
                                 const nlohmann::json& value) {
  nlohmann::json body{
      {"metadata", {{"annotations", {{controls::kLastDecisionAnnotation, value}}}}}};
  auto r = client_.send("PATCH",
                        fmt::format("/apis/{}/namespaces/{}/horizontalpodautoscalers/{}",
                                    apiVersion_, hpa.metadata.namespace_, hpa.metadata.name),
                        &body, "application/merge-patch+json");
  controller::reportWrite(writes_, controller::WriteKind::LastDecision, r.ok());
  if (!r.ok()) {
    logger_.error("could not record the decision", "HPA",
                  api::objectKey(hpa.metadata.namespace_, hpa.metadata.name), "err",
                  r.error().message);
    return false;
  }
  logger_.v(4, "recorded the decision", "HPA",
            api::objectKey(hpa.metadata.namespace_, hpa.metadata.name));
  return true;
}

void ApiDecisionPublisher::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  stored_.erase(key);
}

}  // namespace hpa::adapters
