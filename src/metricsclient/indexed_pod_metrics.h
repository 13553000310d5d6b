#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/label_selector.h"
#include "api/metrics.h"
#include "api/pod.h"
#include "common/result.h"
#include "common/time.h"
#include "metricsclient/api_selection.h"
#include "metricsclient/metrics_client.h"
#include "metricsclient/name_table.h"

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
// Each item's name and its whole-pod usage of the list's first resources (the rule of
// podResourceUsage) are also kept in one compact record per item, read when an HPA's samples are
// built: at scale an item's ObjectMeta, containers and usage maps are each a cache miss, paid by
// every reconcile that reads the list, while the records are read in position order.
// Immutable after construction; thread-safe.
class IndexedPodMetrics {
 public:
  // The pods of `ns` the selector picks in the pod cache.
  using PodsOfSelector =
      std::function<api::SharedPods(const std::string& ns, const api::Selector& selector)>;

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
  // resourceMetricsFromPodMetrics over select()'s items, for `resource` summed over each pod's
  // containers (or `container`'s value), answered from the records where they hold the resource;
  // a failed selection is wrapped as a failed request to the resource metrics API.
  Result<PodMetricsResult> resourceMetrics(const ResourceMetricsRequest& request,
                                           const std::string& resource,
                                           const std::string& container,
                                           const PodsOfSelector& podsOf,
                                           const PodLabelsLookup& podLabels) const;

 private:
  // Resources whose whole-pod usage each record holds: the first ones the list names (cpu and
  // memory, from metrics-server); any other resource is converted from the items.
  static constexpr std::size_t kRecordedResources = 2;
  struct Record {
    std::string_view name;  // into names_
    Time timestamp;
    Duration window{0};
    std::array<std::int64_t, kRecordedResources> usage{};
    std::uint8_t present = 0;  // bit r: the pod has a value of resources_[r]
  };
  // The positions select() answers with, ascending; nullopt where the plain rule decides (an
  // unparsable selector, another namespace, a selector matching unlabelled items).
  std::optional<std::vector<std::size_t>> pick(const ResourceMetricsRequest& request,
                                               const PodsOfSelector& podsOf) const;

  api::PodMetricsList list_;
  std::string ns_;
  std::vector<std::size_t> inNamespace_;  // positions, ascending
  // Unlabelled items by pod name (name_table.h): a lookup per listed pod is the selection's main
  // cost, so it touches one slot and the item's record.
  NameTable unlabelled_;
  // The name at a position, as the table reads it (the record's first field: fetching the name's
  // view fetches the record).
  auto recordNames() const {
    return [this](std::size_t p) -> const std::string_view& { return records_[p].name; };
  }
  std::vector<std::size_t> labelled_;  // positions with labels, ascending
  std::vector<api::Labels> labels_;    // per position (labelled items)
  std::vector<Record> records_;        // per position (items of the namespace)
  // The records' names, in position order; shared with the samples built from them.
  std::shared_ptr<char[]> names_;
  std::vector<std::string> resources_;  // at most kRecordedResources
  // label key -> value -> positions (ascending), over the labelled items.
  std::unordered_map<std::string, std::unordered_map<std::string, std::vector<std::size_t>>>
      byLabel_;
};

}  // namespace hpa::metricsclient
