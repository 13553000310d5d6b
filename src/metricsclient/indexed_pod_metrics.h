#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/label_selector.h"
#include "api/metrics.h"
#include "api/pod.h"
#include "common/result.h"
#include "metricsclient/api_selection.h"

namespace hpa::metricsclient {

// A namespace's PodMetrics list as the batching client shares it between the HPAs of the
// namespace, indexed so that each HPA's selection costs its own pods, not the namespace's: by
// pod name, and by the labels the items carry themselves (metrics-server copies the pod's). The
// selection is exactly selectPodMetrics' with the pod cache's labels for unlabelled items (an
// unknown pod counts as unlabelled):
//  * items with labels of their own: candidates from the label index (the selector's first
//    equality or set requirement), then the whole selector on the item's labels;
//  * unlabelled items: the pods the selector picks in the pod cache (its selector index), each
//    looked up here by name;
//  * a selector that matches an empty label set (only `!=`, `notin`, `!key`): every item, as
//    selectPodMetrics does it (unlabelled items of unknown pods match it too).
// Immutable after construction; thread-safe.
class IndexedPodMetrics {
 public:
  // The pods of `ns` the selector picks in the pod cache.
  using PodsOfSelector = std::function<api::SharedPods(const std::string& ns, const api::Selector& selector)>;

  IndexedPodMetrics(api::PodMetricsList list, std::string ns);
  // The indexes view the items' names: moved with the list, never copied apart from it.
  IndexedPodMetrics(IndexedPodMetrics&&) = default;
  IndexedPodMetrics(const IndexedPodMetrics&) = delete;
  IndexedPodMetrics& operator=(const IndexedPodMetrics&) = delete;

  const api::PodMetricsList& list() const { return list_; }
  // What the metrics API returns for `request` (of this namespace), as selectPodMetrics, pointing
  // into the list (valid while this object lives).
  Result<std::vector<const api::PodMetrics*>> select(const ResourceMetricsRequest& request,
                                                     const PodsOfSelector& podsOf,
                                                     const PodLabelsLookup& podLabels) const;

 private:
  api::PodMetricsList list_;
  std::string ns_;
  std::vector<std::size_t> inNamespace_;                        // positions, ascending
  // Unlabelled items by pod name: an open-addressed table of (hash, first position) whose probe
  // compares a name only when the hashes agree, and each position's next one of the same name
  // (npos at the end; names are unique but for a hostile list). A lookup per listed pod is the
  // selection's main cost, so it touches one slot and the item, not a bucket, a node and a key.
  struct NameSlot {
    std::uint32_t hash = 0;
    std::uint32_t position = 0;  // + 1; 0 marks an empty slot
  };
  // The slot holding `name`, or the empty one where it would go.
  std::size_t slotOf(std::string_view name, std::uint32_t hash) const;
  // The first position of an unlabelled item named `name` (of hash `hash`), size_t(-1) when there is none.
  std::size_t unlabelledFirst(std::string_view name, std::uint32_t hash) const;
  std::vector<NameSlot> unlabelled_;  // size a power of two, at most half full
  std::size_t unlabelledCount_ = 0;
  std::vector<std::size_t> nextSameName_;
  std::vector<std::size_t> labelled_;                           // positions with labels, ascending
  std::vector<api::Labels> labels_;                             // per position (labelled items)
  // label key -> value -> positions (ascending), over the labelled items.
  std::unordered_map<std::string, std::unordered_map<std::string, std::vector<std::size_t>>> byLabel_;
};

}  // namespace hpa::metricsclient
