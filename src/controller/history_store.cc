#include "controller/history_store.h"

namespace hpa::controller {

std::optional<api::AutoscalerHistory> HistoryStore::get(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void HistoryStore::put(const std::string& key, api::AutoscalerHistory history) {
  std::lock_guard lock(mu_);
  entries_.insert_or_assign(key, std::move(history));
}

void HistoryStore::erase(const std::string& key) {
  std::lock_guard lock(mu_);
  entries_.erase(key);
}

std::vector<std::string> HistoryStore::keys() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [k, v] : entries_) out.push_back(k);
  return out;
}

}  // namespace hpa::controller
