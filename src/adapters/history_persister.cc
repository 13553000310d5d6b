#include "adapters/history_persister.h"

#include <fmt/format.h>

#include <vector>

#include "api/codec.h"
#include "common/json_value.h"

namespace hpa::adapters {

void ApiHistoryPersister::persist(const api::HorizontalPodAutoscaler& hpa,
                                  const api::AutoscalerHistory& history) {
  const std::string key = hpa.metadata.namespace_ + "/" + hpa.metadata.name;
  {
    std::lock_guard<std::mutex> lock(mu_);
    offered_[key] = Offered{hpa.metadata.namespace_, hpa.metadata.name, history};
    auto it = written_.find(key);
    if (it == written_.end()) {
      // What a previous run persisted, read once; afterwards our own writes keep it current.
      if (auto stored = controller::historyFromAnnotation(hpa, logger_)) {
        it = written_.emplace(key, std::move(*stored)).first;
      }
    }
    if (!controller::mattersForRestart(it == written_.end() ? nullptr : &it->second, history))
      return;
  }
  write(hpa.metadata.namespace_, hpa.metadata.name, history);
}

int ApiHistoryPersister::flush() {
  std::vector<Offered> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, offered] : offered_) {
      auto it = written_.find(key);
      if (controller::mattersForRestart(it == written_.end() ? nullptr : &it->second,
                                        offered.history))
        pending.push_back(offered);
    }
  }
  int written = 0;
  for (const auto& p : pending) written += write(p.namespace_, p.name, p.history) ? 1 : 0;
  return written;
}

bool ApiHistoryPersister::write(const std::string& ns, const std::string& name,
                                const api::AutoscalerHistory& history) {
  const std::string key = ns + "/" + name;
  api::AutoscalerHistory copy = history;
  copy.name = name;
  copy.namespace_ = ns;
  nlohmann::json patch{
      {"metadata",
       {{"annotations",
         {{controller::kHistoryAnnotation, api::encodeAutoscalerHistory(copy).dump()}}}}}};
  auto r = client_.send(
      "PATCH",
      fmt::format("/apis/{}/namespaces/{}/horizontalpodautoscalers/{}", apiVersion_, ns, name),
      &patch, "application/merge-patch+json");
  controller::reportWrite(writes_, controller::WriteKind::History, r.ok());
  if (!r.ok()) {
    logger_.error("could not persist history", "HPA", key, "err", r.error().message);
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  written_[key] = history;
  return true;
}

void ApiHistoryPersister::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  written_.erase(key);
  offered_.erase(key);
}

}  // namespace hpa::adapters
