#include "informer/pod_selector_index.h"

namespace hpa::informer {
namespace {

std::int64_t ticks(Time t) { return t.time_since_epoch().count(); }

}  // namespace

PodSelectorIndex::PodSelectorIndex(const Clock& clock, Duration idle) : clock_(clock), idle_(idle) {}

std::vector<PodSelectorIndex::Ptr> PodSelectorIndex::list(const std::string& ns, const api::Selector& selector,
                                                          const ObjectCache<api::Pod>& cache) {
  if (selector.isNothing()) return {};
  const std::string key = selector.toString();
  const Time now = clock_.now();
  const auto copy = [&](const Entry& e) {
    e.lastUsed.store(ticks(now), std::memory_order_relaxed);
    std::vector<Ptr> out;
    out.reserve(e.pods.size());
    for (const auto& [name, pod] : e.pods) out.push_back(pod);
    return out;
  };
  {
    std::shared_lock lock(mu_);
    if (auto nsIt = byNamespace_.find(ns); nsIt != byNamespace_.end()) {
      if (auto it = nsIt->second.find(key); it != nsIt->second.end()) return copy(*it->second);
    }
  }
  std::unique_lock lock(mu_);
  pruneIdle(now);
  auto& slot = byNamespace_[ns][key];
  if (!slot) {
    // First use: one scan, under the lock the event handlers take (see the class comment).
    slot = std::make_unique<Entry>(selector);
    for (auto& pod : cache.list(ns)) {
      if (selector.matches(pod->labels)) slot->pods.emplace(std::string_view(pod->name), std::move(pod));
    }
  }
  return copy(*slot);
}

EventHandlers<api::Pod> PodSelectorIndex::handlers() {
  return {[this](const Ptr& pod) { put(pod); }, [this](const Ptr&, const Ptr& pod) { put(pod); },
          [this](const Ptr& pod) { remove(pod); }};
}

void PodSelectorIndex::put(const Ptr& pod) {
  std::unique_lock lock(mu_);
  pruneIdle(clock_.now());
  auto nsIt = byNamespace_.find(pod->namespace_);
  if (nsIt == byNamespace_.end()) return;
  for (auto& [key, entry] : nsIt->second) {
    // The key views the held pod's name: the old entry goes before the new pod takes its place.
    entry->pods.erase(pod->name);
    if (entry->selector.matches(pod->labels)) entry->pods.emplace(std::string_view(pod->name), pod);
  }
}

void PodSelectorIndex::remove(const Ptr& pod) {
  std::unique_lock lock(mu_);
  auto nsIt = byNamespace_.find(pod->namespace_);
  if (nsIt == byNamespace_.end()) return;
  for (auto& [key, entry] : nsIt->second) entry->pods.erase(pod->name);
}

void PodSelectorIndex::pruneIdle(Time now) {
  if (now - lastPrune_ < std::chrono::minutes(1)) return;
  lastPrune_ = now;
  const std::int64_t oldest = ticks(now - idle_);
  for (auto nsIt = byNamespace_.begin(); nsIt != byNamespace_.end();) {
    std::erase_if(nsIt->second, [&](const auto& e) { return e.second->lastUsed.load() < oldest; });
    nsIt = nsIt->second.empty() ? byNamespace_.erase(nsIt) : std::next(nsIt);
  }
}

std::size_t PodSelectorIndex::selectorCount() const {
  std::shared_lock lock(mu_);
  std::size_t n = 0;
  for (const auto& [ns, entries] : byNamespace_) n += entries.size();
  return n;
}

std::size_t PodSelectorIndex::indexedPods() const {
  std::shared_lock lock(mu_);
  std::size_t n = 0;
  for (const auto& [ns, entries] : byNamespace_) {
    for (const auto& [key, e] : entries) n += e->pods.size();
  }
  return n;
}

}  // namespace hpa::informer
