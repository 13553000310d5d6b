#include "daemon/history_persistence.h"

#include <fmt/format.h>

#include "api/codec.h"

namespace hpa::daemon {
namespace {

constexpr auto kTimestampOnlyInterval = std::chrono::minutes(1);

// Equal apart from timestamps.
bool sameShape(const api::AutoscalerHistory& a, const api::AutoscalerHistory& b) {
  auto recs = [](const api::AutoscalerHistory& h) {
    std::vector<std::int32_t> out;
    for (const auto& r : h.recommendations) out.push_back(r.replicas);
    return out;
  };
  return recs(a) == recs(b) && a.scaleUpEvents == b.scaleUpEvents && a.scaleDownEvents == b.scaleDownEvents;
}

}  // namespace

std::optional<api::AutoscalerHistory> historyFromAnnotation(const api::HorizontalPodAutoscaler& hpa,
                                                            const Logger& logger) {
  auto it = hpa.metadata.annotations.find(kHistoryAnnotation);
  if (it == hpa.metadata.annotations.end()) return std::nullopt;
  auto j = nlohmann::json::parse(it->second, nullptr, false);
  if (j.is_discarded()) {
    logger.error("ignoring an unreadable history annotation", "HPA", hpa.metadata.namespace_ + "/" + hpa.metadata.name);
    return std::nullopt;
  }
  auto h = api::decodeAutoscalerHistory(j);
  if (!h.ok()) {
    logger.error("ignoring an invalid history annotation", "HPA", hpa.metadata.namespace_ + "/" + hpa.metadata.name,
                 "err", h.error().message);
    return std::nullopt;
  }
  h->name = hpa.metadata.name;
  h->namespace_ = hpa.metadata.namespace_;
  return *h;
}

void HistoryPersister::persist(const api::HorizontalPodAutoscaler& hpa, const api::AutoscalerHistory& history) {
  const std::string key = hpa.metadata.namespace_ + "/" + hpa.metadata.name;
  const Time now = clock_.now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = written_.find(key);
    std::optional<api::AutoscalerHistory> last;
    if (it != written_.end()) {
      last = it->second.history;
    } else if (auto stored = historyFromAnnotation(hpa, logger_)) {
      last = *stored;
    }
    if (last) {
      if (*last == history) return;
      if (it != written_.end() && sameShape(*last, history) && now - it->second.at < kTimestampOnlyInterval) return;
    }
  }
  api::AutoscalerHistory copy = history;
  copy.name = hpa.metadata.name;
  copy.namespace_ = hpa.metadata.namespace_;
  nlohmann::json patch{{"metadata", {{"annotations", {{kHistoryAnnotation, api::encodeAutoscalerHistory(copy).dump()}}}}}};
  auto r = client_.send("PATCH",
                        fmt::format("/apis/{}/namespaces/{}/horizontalpodautoscalers/{}", apiVersion_,
                                    hpa.metadata.namespace_, hpa.metadata.name),
                        &patch, "application/merge-patch+json");
  if (!r.ok()) {
    logger_.error("could not persist history", "HPA", key, "err", r.error().message);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  written_[key] = Written{history, now};
}

void HistoryPersister::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  written_.erase(key);
}

}  // namespace hpa::daemon
