#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/label_selector.h"
#include "api/pod.h"
#include "common/clock.h"
#include "informer/informer.h"
#include "informer/object_cache.h"

namespace hpa::informer {

// The pods each selector in use picks, per namespace, kept current by the pod informer's events:
// a reconcile reads its HPA's pods without scanning the namespace, so its cost does not grow with
// the other workloads beside it (an informer index, as upstream's pod lister has none). A
// selector is indexed the first time it is asked for, with one scan of its namespace, and
// dropped once nobody has asked for it for `idle` (HPAs deleted or retargeted). Thread-safe.
//
// Consistency with the cache: the informer updates its cache before it calls the handlers, from
// one thread, and the first scan of a selector happens under the index's lock; so whether an
// event lands before or after that scan, the index ends up with what the cache holds.
class PodSelectorIndex {
 public:
  using Ptr = std::shared_ptr<const api::Pod>;
  explicit PodSelectorIndex(const Clock& clock, Duration idle = std::chrono::hours(2));

  // The pods of `ns` that `selector` matches, by name as the cache lists them. Readers share one
  // snapshot per selector until a pod event changes it (the next reader then takes a new one).
  api::SharedPods list(const std::string& ns, const api::Selector& selector,
                       const ObjectCache<api::Pod>& cache);
  // For the pod informer's addHandlers, before it starts.
  EventHandlers<api::Pod> handlers();

  std::size_t selectorCount() const;

 private:
  struct Entry {
    explicit Entry(api::Selector s) : selector(std::move(s)) {}
    api::Selector selector;
    // The matching pods in name order, handed to readers as they are: an event changes the list
    // in place when no reader holds it, a copy otherwise (copy on write, under the exclusive lock).
    std::shared_ptr<std::vector<Ptr>> pods = std::make_shared<std::vector<Ptr>>();
    mutable std::atomic<std::int64_t> lastUsed{
        0};  // clock ticks, set by readers under a shared lock

    std::vector<Ptr>& writable();
  };
  using Entries = std::unordered_map<std::string, std::unique_ptr<Entry>>;  // by selector key

  void put(const Ptr& pod);
  void remove(const Ptr& pod);
  // Drops idle selectors, at most once a minute; under the exclusive lock.
  void pruneIdle(Time now);

  const Clock& clock_;
  const Duration idle_;
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, Entries> byNamespace_;  // guarded by mu_
  Time lastPrune_{};                                      // guarded by mu_
};

}  // namespace hpa::informer
