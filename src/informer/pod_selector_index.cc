#include "informer/pod_selector_index.h"

#include <algorithm>

namespace hpa::informer {
namespace {

std::int64_t ticks(Time t) { return t.time_since_epoch().count(); }

// Where the pod named `name` is or would go in a list in name order.
std::vector<PodSelectorIndex::Ptr>::const_iterator position(
    const std::vector<PodSelectorIndex::Ptr>& pods, std::string_view name) {
  return std::lower_bound(
      pods.begin(), pods.end(), name,
      [](const PodSelectorIndex::Ptr& pod, std::string_view n) { return pod->name < n; });
}

}  // namespace

PodSelectorIndex::PodSelectorIndex(const Clock& clock, Duration idle)
    : clock_(clock), idle_(idle) {}

std::vector<PodSelectorIndex::Ptr>& PodSelectorIndex::Entry::writable() {
  if (pods.use_count() > 1) {
    pods = std::make_shared<std::vector<Ptr>>(*pods);
  } else {
    // The last reader let go (its release pairs with this acquire): its reads are done.
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  return *pods;
}

api::SharedPods PodSelectorIndex::list(const std::string& ns, const api::Selector& selector,
                                       const ObjectCache<api::Pod>& cache) {
  if (selector.isNothing()) return std::make_shared<const std::vector<Ptr>>();
  const std::string key = selector.toString();
  const Time now = clock_.now();
  const auto share = [&](const Entry& e) {
    e.lastUsed.store(ticks(now), std::memory_order_relaxed);
    return api::SharedPods(e.pods);
  };
  {
    std::shared_lock lock(mu_);
    if (auto nsIt = byNamespace_.find(ns); nsIt != byNamespace_.end()) {
      if (auto it = nsIt->second.find(key); it != nsIt->second.end()) return share(*it->second);
    }
  }
  std::unique_lock lock(mu_);
  pruneIdle(now);
  auto& slot = byNamespace_[ns][key];
  if (!slot) {
    // First use: one scan, under the lock the event handlers take (see the class comment).
    slot = std::make_unique<Entry>(selector);
    auto& pods = *slot->pods;
    for (auto& pod : cache.list(ns)) {
      if (selector.matches(pod->labels)) pods.push_back(std::move(pod));
    }
    std::sort(pods.begin(), pods.end(),
              [](const Ptr& a, const Ptr& b) { return a->name < b->name; });
  }
  return share(*slot);
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
    const auto at = position(*entry->pods, pod->name);
    const bool held = at != entry->pods->end() && (*at)->name == pod->name;
    const bool matches = entry->selector.matches(pod->labels);
    if (!held && !matches) continue;
    const auto offset = at - entry->pods->begin();
    auto& pods = entry->writable();
    if (held && matches) {
      pods[static_cast<std::size_t>(offset)] = pod;
    } else if (held) {
      pods.erase(pods.begin() + offset);
    } else {
      pods.insert(pods.begin() + offset, pod);
    }
  }
}

void PodSelectorIndex::remove(const Ptr& pod) {
  std::unique_lock lock(mu_);
  auto nsIt = byNamespace_.find(pod->namespace_);
  if (nsIt == byNamespace_.end()) return;
  for (auto& [key, entry] : nsIt->second) {
    const auto at = position(*entry->pods, pod->name);
    if (at == entry->pods->end() || (*at)->name != pod->name) continue;
    const auto offset = at - entry->pods->begin();
    auto& pods = entry->writable();
    pods.erase(pods.begin() + offset);
  }
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

}  // namespace hpa::informer
