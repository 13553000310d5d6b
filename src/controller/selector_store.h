#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/label_selector.h"
#include "api/pod.h"

namespace hpa::controller {

// Which pods each HPA selects, for the ambiguous-selector check (upstream's optimized selector
// store, v1.37). An HPA is registered with the Nothing selector when it is first seen, and its
// real selector is recorded by each reconcile; an HPA that has never been reconciled therefore
// matches no pod. Thread-safe: workers reconcile different HPAs concurrently.
//
// The check runs every reconcile and costs a match per HPA of the namespace, while its answer
// changes only when a selector or the pods' label sets do: answers are remembered per namespace
// by the label sets asked about, and forgotten when a selector of the namespace changes.
class SelectorStore {
 public:
  // Registers `key` ("ns/name") with the Nothing selector unless present; true when newly added.
  bool registerHpa(const std::string& key);
  // Records the selector of a registered HPA; false when the HPA is not registered (deleted).
  bool update(const std::string& key, const api::Selector& selector);
  void remove(const std::string& key);
  size_t size() const;

  // Distinct keys of the HPAs in `ns` whose selector matches at least one of `pods`, in key
  // order; stops after `limit` matches (upstream stops at 2: enough to know it is ambiguous).
  std::vector<std::string> hpasSelectingAny(const std::string& ns,
                                            const std::vector<const api::Pod*>& pods,
                                            size_t limit = 2) const;

 private:
  struct Namespace {
    std::map<std::string, api::Selector> selectors;  // by HPA name
    std::uint64_t generation = 0;                    // counts selector changes; under mu_
    // hpasSelectingAny's answers at `answeredAt`, by limit and label sets (see signature()).
    mutable std::mutex answersMu;
    mutable std::uint64_t answeredAt = 0;
    mutable std::unordered_map<std::string, std::vector<std::string>> answers;
  };

  mutable std::shared_mutex mu_;
  std::map<std::string, Namespace> byNamespace_;  // guarded by mu_
};

}  // namespace hpa::controller
