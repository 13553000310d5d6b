#include "controller/selector_store.h"

#include <algorithm>
#include <mutex>

#include "api/meta.h"

namespace hpa::controller {
namespace {

// Answers kept per namespace before they are all forgotten: bounds pods whose label sets keep
// changing (a label per pod, a rollout) to a few answers per HPA.
constexpr std::size_t kMaxAnswersPerHpa = 4;

// The question's identity: the limit and each distinct label set, length-prefixed.
std::string signature(std::size_t limit, const std::vector<const api::Labels*>& labelSets) {
  std::string out = std::to_string(limit);
  for (const auto* labels : labelSets) {
    out += ';';
    out += std::to_string(labels->packed().size());
    out += ':';
    out += labels->packed();
  }
  return out;
}

}  // namespace

bool SelectorStore::registerHpa(const std::string& key) {
  auto [ns, name] = api::splitObjectKey(key);
  std::unique_lock lock(mu_);
  auto& space = byNamespace_[ns];
  const bool added = space.selectors.emplace(name, api::Selector::nothing()).second;
  if (added) ++space.generation;
  return added;
}

bool SelectorStore::update(const std::string& key, const api::Selector& selector) {
  auto [ns, name] = api::splitObjectKey(key);
  {
    // Every reconcile records its selector, which has mostly not changed: no exclusive lock then.
    std::shared_lock lock(mu_);
    auto nsIt = byNamespace_.find(ns);
    if (nsIt == byNamespace_.end()) return false;
    auto it = nsIt->second.selectors.find(name);
    if (it == nsIt->second.selectors.end()) return false;
    if (it->second == selector) return true;
  }
  std::unique_lock lock(mu_);
  auto nsIt = byNamespace_.find(ns);
  if (nsIt == byNamespace_.end()) return false;
  auto it = nsIt->second.selectors.find(name);
  if (it == nsIt->second.selectors.end()) return false;
  if (!(it->second == selector)) {
    it->second = selector;
    ++nsIt->second.generation;
  }
  return true;
}

void SelectorStore::remove(const std::string& key) {
  auto [ns, name] = api::splitObjectKey(key);
  std::unique_lock lock(mu_);
  auto nsIt = byNamespace_.find(ns);
  if (nsIt == byNamespace_.end()) return;
  if (nsIt->second.selectors.erase(name) > 0) ++nsIt->second.generation;
  if (nsIt->second.selectors.empty()) byNamespace_.erase(nsIt);
}

size_t SelectorStore::size() const {
  std::shared_lock lock(mu_);
  size_t n = 0;
  for (const auto& [ns, space] : byNamespace_) n += space.selectors.size();
  return n;
}

std::vector<std::string> SelectorStore::hpasSelectingAny(const std::string& ns,
                                                         const std::vector<const api::Pod*>& pods,
                                                         size_t limit) const {
  // Pods of one workload mostly share their labels: match each distinct label set once.
  std::vector<const api::Labels*> labelSets;
  for (const auto* pod : pods) {
    // Most often the same labels as the pod before: no entry for it.
    if (!labelSets.empty() && labelSets.back()->packed() == pod->labels.packed()) continue;
    labelSets.push_back(&pod->labels);
  }
  const auto byPacked = [](const api::Labels* a, const api::Labels* b) {
    return a->packed() < b->packed();
  };
  const auto samePacked = [](const api::Labels* a, const api::Labels* b) {
    return a->packed() == b->packed();
  };
  std::sort(labelSets.begin(), labelSets.end(), byPacked);
  labelSets.erase(std::unique(labelSets.begin(), labelSets.end(), samePacked), labelSets.end());
  const std::string question = signature(limit, labelSets);

  std::vector<std::string> keys;
  std::shared_lock lock(mu_);
  auto nsIt = byNamespace_.find(ns);
  if (nsIt == byNamespace_.end()) return keys;
  const Namespace& space = nsIt->second;
  {
    std::lock_guard answersLock(space.answersMu);
    if (space.answeredAt != space.generation) {
      space.answers.clear();
      space.answeredAt = space.generation;
    } else if (auto it = space.answers.find(question); it != space.answers.end()) {
      return it->second;
    }
  }
  for (const auto& [name, selector] : space.selectors) {
    for (const auto* labels : labelSets) {
      if (selector.matches(*labels)) {
        std::string key = ns;
        key += '/';
        key += name;
        keys.push_back(std::move(key));
        break;
      }
    }
    if (keys.size() >= limit) break;
  }
  std::lock_guard answersLock(space.answersMu);
  if (space.answers.size() >= kMaxAnswersPerHpa * space.selectors.size()) space.answers.clear();
  space.answers.emplace(question, keys);
  return keys;
}

}  // namespace hpa::controller
