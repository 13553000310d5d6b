#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "api/labels.h"
#include "api/pod.h"
#include "common/clock.h"
#include "informer/informer.h"

namespace hpa::informer {

// The labels of the pods the pod informer saw deleted in the last `keep`. The metrics APIs go on
// answering for a deleted pod until their next sample (metrics-server until its next scrape, up
// to its resolution), and upstream's HPA counts every value the API returns for its selector,
// whether or not its pod lister still holds the pod. A metric item that names its pod without
// carrying its labels (custom metrics) is matched to an HPA's selector by the pod's labels: these
// keep that possible after the pod cache has let the pod go, so that a pod deleted between a
// reconcile's pod listing and its metrics selection is neither counted as missing nor dropped
// from the average. Thread-safe.
class RecentlyDeletedPods {
 public:
  // Longer than metrics-server's resolution (15 to 60 s) plus the age of a shared metrics list.
  static constexpr Duration kDefaultKeep = std::chrono::minutes(2);

  explicit RecentlyDeletedPods(const Clock& clock, Duration keep = kDefaultKeep);

  // For the pod informer's addHandlers, before it starts: a deletion is remembered, an addition
  // under the same name forgets it.
  EventHandlers<api::Pod> handlers();
  // The labels pod `name` of `ns` had when it was deleted, if that was less than `keep` ago.
  std::optional<api::Labels> labelsOf(const std::string& ns, const std::string& name) const;
  // Pods remembered now (expired ones go when the next deletion is recorded).
  std::size_t size() const;

 private:
  struct Gone {
    api::Labels labels;
    Time at;
  };
  void deleted(const api::Pod& pod);
  void added(const api::Pod& pod);
  void pruneLocked(Time now);

  const Clock& clock_;
  const Duration keep_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Gone> byKey_;      // by namespace/name; guarded by mu_
  std::deque<std::pair<Time, std::string>> byTime_;  // deletions in order; guarded by mu_
};

}  // namespace hpa::informer
