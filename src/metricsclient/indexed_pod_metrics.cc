#include "metricsclient/indexed_pod_metrics.h"

#include <algorithm>
#include <array>

namespace hpa::metricsclient {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

std::uint32_t nameHash(std::string_view name) {
  return static_cast<std::uint32_t>(std::hash<std::string_view>{}(name));
}

bool inNamespace(const std::string& objectNs, const std::string& ns) { return objectNs.empty() || objectNs == ns; }

// The requirement that narrows the candidates: the first `=`, `==` or `in` (the selector is a
// conjunction, so any one of them bounds the matches).
const api::Selector::Requirement* narrowing(const api::Selector& selector) {
  for (const auto& r : selector.requirements()) {
    if (r.op == api::Selector::Op::Equals || r.op == api::Selector::Op::DoubleEquals ||
        r.op == api::Selector::Op::In) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace

IndexedPodMetrics::IndexedPodMetrics(api::PodMetricsList list, std::string ns)
    : list_(std::move(list)), ns_(std::move(ns)), nextSameName_(list_.items.size(), kNone), labels_(list_.items.size()) {
  std::vector<std::size_t> lastSameName(list_.items.size(), kNone);
  std::size_t slots = 16;
  while (slots < 2 * list_.items.size()) slots *= 2;
  unlabelled_.assign(slots, NameSlot{});
  for (std::size_t i = 0; i < list_.items.size(); ++i) {
    const auto& m = list_.items[i];
    if (!inNamespace(m.metadata.namespace_, ns_)) continue;
    inNamespace_.push_back(i);
    if (m.metadata.labels.empty()) {
      const std::uint32_t hash = nameHash(m.metadata.name);
      NameSlot& slot = unlabelled_[slotOf(m.metadata.name, hash)];
      if (slot.position == 0) {
        slot = NameSlot{hash, static_cast<std::uint32_t>(i + 1)};
        ++unlabelledCount_;
        lastSameName[i] = i;
      } else {
        // A name twice: both, as the API sent them, chained from the first.
        const std::size_t first = slot.position - 1;
        nextSameName_[lastSameName[first]] = i;
        lastSameName[first] = i;
      }
      continue;
    }
    labelled_.push_back(i);
    labels_[i] = api::Labels::fromMap(m.metadata.labels);
    for (const auto& [key, value] : m.metadata.labels) byLabel_[key][value].push_back(i);
  }
}

std::size_t IndexedPodMetrics::slotOf(std::string_view name, std::uint32_t hash) const {
  const std::size_t mask = unlabelled_.size() - 1;
  for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
    const NameSlot& slot = unlabelled_[at];
    if (slot.position == 0) return at;
    if (slot.hash == hash && list_.items[slot.position - 1].metadata.name == name) return at;
  }
}

std::size_t IndexedPodMetrics::unlabelledFirst(std::string_view name, std::uint32_t hash) const {
  const std::uint32_t position = unlabelled_[slotOf(name, hash)].position;
  return position == 0 ? kNone : position - 1;
}

Result<std::vector<const api::PodMetrics*>> IndexedPodMetrics::select(const ResourceMetricsRequest& request,
                                                                      const PodsOfSelector& podsOf,
                                                                      const PodLabelsLookup& podLabels) const {
  auto selector = api::Selector::parse(request.labelSelector);
  // An unparsable selector is the API's 400: selectPodMetrics words it.
  if (!selector.ok() || request.ns != ns_) return selectPodMetricsIn(request, list_.items, podLabels);
  std::vector<const api::PodMetrics*> out;
  if (selector->isEverything()) {
    out.reserve(inNamespace_.size());
    for (auto i : inNamespace_) out.push_back(&list_.items[i]);
    return out;
  }
  // Unlabelled items of pods the cache does not know match such a selector: the plain rule.
  if (selector->matches(api::Labels())) return selectPodMetricsIn(request, list_.items, podLabels);

  std::vector<std::size_t> picked;
  // Items with labels of their own.
  if (const auto* r = narrowing(*selector)) {
    if (auto byKey = byLabel_.find(r->key); byKey != byLabel_.end()) {
      for (const auto& value : r->values) {
        auto byValue = byKey->second.find(value);
        if (byValue == byKey->second.end()) continue;
        for (auto i : byValue->second) {
          if (selector->matches(labels_[i])) picked.push_back(i);
        }
      }
    }
  } else {
    for (auto i : labelled_) {
      if (selector->matches(labels_[i])) picked.push_back(i);
    }
  }
  // Unlabelled items: the cache's pods of the selector (the pod's labels decide).
  if (unlabelledCount_ > 0) {
    const api::SharedPods pods = podsOf(ns_, *selector);
    const auto& listed = *pods;
    // Each lookup chases pod, name, slot, item and the item's name, mostly cache misses at scale
    // and each waiting for the one before: a batch's names are hashed first and their slots and
    // items fetched ahead, so that the misses of a batch overlap instead of queueing.
    constexpr std::size_t kBatch = 16;
    std::array<std::uint32_t, kBatch> hashes{};
    const std::size_t mask = unlabelled_.size() - 1;
    for (std::size_t start = 0; start < listed.size(); start += kBatch) {
      const std::size_t count = std::min(kBatch, listed.size() - start);
      for (std::size_t b = 0; b < count; ++b) {
        hashes[b] = nameHash(listed[start + b]->name);
        __builtin_prefetch(&unlabelled_[hashes[b] & mask]);
      }
      for (std::size_t b = 0; b < count; ++b) {
        if (const auto position = unlabelled_[hashes[b] & mask].position) __builtin_prefetch(&list_.items[position - 1]);
      }
      for (std::size_t b = 0; b < count; ++b) {
        for (std::size_t i = unlabelledFirst(listed[start + b]->name, hashes[b]); i != kNone; i = nextSameName_[i]) {
          picked.push_back(i);
        }
      }
    }
  }
  // The API's order; a set requirement's values are distinct, so no position comes twice.
  std::sort(picked.begin(), picked.end());
  out.reserve(picked.size());
  for (auto i : picked) out.push_back(&list_.items[i]);
  return out;
}

}  // namespace hpa::metricsclient
