#include "daemon/history_persistence.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "api/codec.h"
#include "common/json_value.h"

namespace hpa::daemon {
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

api::AutoscalerHistory restoredAt(api::AutoscalerHistory history, Time now) {
  auto& recs = history.recommendations;
  auto latest = std::max_element(recs.begin(), recs.end(),
                                 [](const auto& a, const auto& b) { return a.timestamp < b.timestamp; });
  if (latest != recs.end() && latest->timestamp < now) latest->timestamp = now;
  return history;
}

bool mattersForRestart(const api::AutoscalerHistory* persisted, const api::AutoscalerHistory& current) {
  if (!persisted) {
    if (!current.scaleUpEvents.empty() || !current.scaleDownEvents.empty()) return true;
    for (const auto& r : current.recommendations) {
      if (r.replicas != current.recommendations.front().replicas) return true;
    }
    return false;
  }
  if (persisted->scaleUpEvents != current.scaleUpEvents || persisted->scaleDownEvents != current.scaleDownEvents) {
    return true;
  }
  const auto* was = newest(*persisted);
  const auto* is = newest(current);
  if (!was || !is) return (was == nullptr) != (is == nullptr);
  return was->replicas != is->replicas;
}

void HistoryPersister::persist(const api::HorizontalPodAutoscaler& hpa, const api::AutoscalerHistory& history) {
  const std::string key = hpa.metadata.namespace_ + "/" + hpa.metadata.name;
  {
    std::lock_guard<std::mutex> lock(mu_);
    offered_[key] = Offered{hpa.metadata.namespace_, hpa.metadata.name, history};
    auto it = written_.find(key);
    if (it == written_.end()) {
      // What a previous run persisted, read once; afterwards our own writes keep it current.
      if (auto stored = historyFromAnnotation(hpa, logger_)) {
        it = written_.emplace(key, std::move(*stored)).first;
      }
    }
    if (!mattersForRestart(it == written_.end() ? nullptr : &it->second, history)) return;
  }
  write(hpa.metadata.namespace_, hpa.metadata.name, history);
}

int HistoryPersister::flush() {
  std::vector<Offered> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, offered] : offered_) {
      auto it = written_.find(key);
      if (mattersForRestart(it == written_.end() ? nullptr : &it->second, offered.history)) pending.push_back(offered);
    }
  }
  int written = 0;
  for (const auto& p : pending) written += write(p.namespace_, p.name, p.history) ? 1 : 0;
  return written;
}

bool HistoryPersister::write(const std::string& ns, const std::string& name, const api::AutoscalerHistory& history) {
  const std::string key = ns + "/" + name;
  api::AutoscalerHistory copy = history;
  copy.name = name;
  copy.namespace_ = ns;
  nlohmann::json patch{{"metadata", {{"annotations", {{kHistoryAnnotation, api::encodeAutoscalerHistory(copy).dump()}}}}}};
  auto r = client_.send("PATCH", fmt::format("/apis/{}/namespaces/{}/horizontalpodautoscalers/{}", apiVersion_, ns, name),
                        &patch, "application/merge-patch+json");
  if (!r.ok()) {
    logger_.error("could not persist history", "HPA", key, "err", r.error().message);
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  written_[key] = history;
  return true;
}

void HistoryPersister::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  written_.erase(key);
  offered_.erase(key);
}

}  // namespace hpa::daemon
