#include "controller/history_annotation.h"

#include <algorithm>

#include "api/codec.h"
#include "common/json_value.h"

namespace hpa::controller {
namespace {

const api::TimestampedRecommendation* newest(const api::AutoscalerHistory& h) {
  const api::TimestampedRecommendation* out = nullptr;
  for (const auto& r : h.recommendations) {
    if (!out || r.timestamp > out->timestamp) out = &r;
  }
  return out;
}

}  // namespace

std::optional<api::AutoscalerHistory> historyFromAnnotation(const api::HorizontalPodAutoscaler& hpa,
                                                            const Logger& logger) {
  auto it = hpa.metadata.annotations.find(kHistoryAnnotation);
  if (it == hpa.metadata.annotations.end()) return std::nullopt;
  auto j = parseUntrustedJson(it->second);
  if (j.is_discarded()) {
    logger.error("ignoring an unreadable history annotation", "HPA",
                 hpa.metadata.namespace_ + "/" + hpa.metadata.name);
    return std::nullopt;
  }
  auto h = api::decodeAutoscalerHistory(j);
  if (!h.ok()) {
    logger.error("ignoring an invalid history annotation", "HPA",
                 hpa.metadata.namespace_ + "/" + hpa.metadata.name, "err", h.error().message);
    return std::nullopt;
  }
  h->name = hpa.metadata.name;
  h->namespace_ = hpa.metadata.namespace_;
  return *h;
}

api::AutoscalerHistory restoredAt(api::AutoscalerHistory history, Time now) {
  auto& recs = history.recommendations;
  auto latest = std::max_element(recs.begin(), recs.end(), [](const auto& a, const auto& b) {
    return a.timestamp < b.timestamp;
  });
  if (latest != recs.end() && latest->timestamp < now) latest->timestamp = now;
  return history;
}

bool mattersForRestart(const api::AutoscalerHistory* persisted,
                       const api::AutoscalerHistory& current) {
  if (!persisted) {
    if (!current.scaleUpEvents.empty() || !current.scaleDownEvents.empty()) return true;
    for (const auto& r : current.recommendations) {
      if (r.replicas != current.recommendations.front().replicas) return true;
    }
    return false;
  }
  if (persisted->scaleUpEvents != current.scaleUpEvents ||
      persisted->scaleDownEvents != current.scaleDownEvents) {
    return true;
  }
  const auto* was = newest(*persisted);
  const auto* is = newest(current);
  if (!was || !is) return (was == nullptr) != (is == nullptr);
  return was->replicas != is->replicas;
}

}  // namespace hpa::controller
