#include "live/decision_publisher.h"

#include <fmt/format.h>

namespace hpa::live {

void ApiDecisionPublisher::publish(const api::HorizontalPodAutoscaler& hpa,
                                   const std::optional<nlohmann::json>& decision) {
  const std::string key = api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
  const auto& annotations = hpa.metadata.annotations;
  const auto cached = annotations.find(controller::kLastDecisionAnnotation);
  if (!decision) {
    if (cached == annotations.end()) return;
    if (patch(hpa, nullptr)) forget(key);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Our own last write wins over a cache that may not show it yet; the annotation is parsed
    // once, not every sync.
    auto it = stored_.find(key);
    if (it == stored_.end() && cached != annotations.end()) {
      it = stored_.emplace(key, nlohmann::json::parse(cached->second, nullptr, /*allow_exceptions=*/false)).first;
    }
    if (it != stored_.end() && controller::sameDecision(it->second, *decision)) return;
  }
  if (!patch(hpa, decision->dump())) return;
  std::lock_guard<std::mutex> lock(mu_);
  stored_.insert_or_assign(key, *decision);
}

bool ApiDecisionPublisher::patch(const api::HorizontalPodAutoscaler& hpa, const nlohmann::json& value) {
  nlohmann::json body{{"metadata", {{"annotations", {{controller::kLastDecisionAnnotation, value}}}}}};
  auto r = client_.send("PATCH",
                        fmt::format("/apis/{}/namespaces/{}/horizontalpodautoscalers/{}", apiVersion_,
                                    hpa.metadata.namespace_, hpa.metadata.name),
                        &body, "application/merge-patch+json");
  if (!r.ok()) {
    logger_.error("could not record the decision", "HPA", api::objectKey(hpa.metadata.namespace_, hpa.metadata.name),
                  "err", r.error().message);
    return false;
  }
  logger_.v(4, "recorded the decision", "HPA", api::objectKey(hpa.metadata.namespace_, hpa.metadata.name));
  return true;
}

void ApiDecisionPublisher::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  stored_.erase(key);
}

}  // namespace hpa::live
