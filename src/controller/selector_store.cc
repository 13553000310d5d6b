#include "controller/selector_store.h"

#include <mutex>
#include <set>

namespace hpa::controller {
namespace {

std::pair<std::string, std::string> splitKey(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

}  // namespace

bool SelectorStore::registerHpa(const std::string& key) {
  auto [ns, name] = splitKey(key);
  std::unique_lock lock(mu_);
  return byNamespace_[ns].emplace(name, api::Selector::nothing()).second;
}

bool SelectorStore::update(const std::string& key, const api::Selector& selector) {
  auto [ns, name] = splitKey(key);
  std::unique_lock lock(mu_);
  auto nsIt = byNamespace_.find(ns);
  if (nsIt == byNamespace_.end()) return false;
  auto it = nsIt->second.find(name);
  if (it == nsIt->second.end()) return false;
  it->second = selector;
  return true;
}

void SelectorStore::remove(const std::string& key) {
  auto [ns, name] = splitKey(key);
  std::unique_lock lock(mu_);
  auto nsIt = byNamespace_.find(ns);
  if (nsIt == byNamespace_.end()) return;
  nsIt->second.erase(name);
  if (nsIt->second.empty()) byNamespace_.erase(nsIt);
}

size_t SelectorStore::size() const {
  std::shared_lock lock(mu_);
  size_t n = 0;
  for (const auto& [ns, hpas] : byNamespace_) n += hpas.size();
  return n;
}

std::vector<std::string> SelectorStore::hpasSelectingAny(const std::string& ns, const std::vector<const api::Pod*>& pods,
                                                         size_t limit) const {
  // Pods of one workload mostly share their labels: match each distinct label set once.
  std::set<const api::Labels*, bool (*)(const api::Labels*, const api::Labels*)> distinct(
      [](const api::Labels* a, const api::Labels* b) { return a->packed() < b->packed(); });
  const api::Labels* previous = nullptr;
  for (const auto* pod : pods) {
    // Most often the same labels as the pod before: skip the set's comparisons.
    if (previous && previous->packed() == pod->labels.packed()) continue;
    distinct.insert(&pod->labels);
    previous = &pod->labels;
  }

  std::vector<std::string> keys;
  std::shared_lock lock(mu_);
  auto nsIt = byNamespace_.find(ns);
  if (nsIt == byNamespace_.end()) return keys;
  for (const auto& [name, selector] : nsIt->second) {
    for (const auto* labels : distinct) {
      if (selector.matches(*labels)) {
        keys.push_back(ns + "/" + name);
        break;
      }
    }
    if (keys.size() >= limit) break;
  }
  return keys;
}

}  // namespace hpa::controller
