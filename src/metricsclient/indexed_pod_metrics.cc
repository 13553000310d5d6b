#include "metricsclient/indexed_pod_metrics.h"

#include <algorithm>

namespace hpa::metricsclient {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

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
  unlabelled_.reserve(list_.items.size());
  for (std::size_t i = 0; i < list_.items.size(); ++i) {
    const auto& m = list_.items[i];
    if (!inNamespace(m.metadata.namespace_, ns_)) continue;
    inNamespace_.push_back(i);
    if (m.metadata.labels.empty()) {
      // A name twice: both, as the API sent them, chained from the first.
      auto [it, first] = unlabelled_.try_emplace(std::string_view(m.metadata.name), i);
      if (!first) nextSameName_[lastSameName[it->second]] = i;
      lastSameName[it->second] = i;
      continue;
    }
    labelled_.push_back(i);
    labels_[i] = api::Labels::fromMap(m.metadata.labels);
    for (const auto& [key, value] : m.metadata.labels) byLabel_[key][value].push_back(i);
  }
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
  if (!unlabelled_.empty()) {
    const api::SharedPods pods = podsOf(ns_, *selector);
    for (const auto& pod : *pods) {
      if (auto it = unlabelled_.find(pod->name); it != unlabelled_.end()) {
        for (std::size_t i = it->second; i != kNone; i = nextSameName_[i]) picked.push_back(i);
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
