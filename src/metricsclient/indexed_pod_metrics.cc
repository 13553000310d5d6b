#include "metricsclient/indexed_pod_metrics.h"

#include <algorithm>

#include "metricsclient/conversions.h"

namespace hpa::metricsclient {
namespace {

bool inNamespace(const std::string& objectNs, const std::string& ns) {
  return objectNs.empty() || objectNs == ns;
}

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
    : list_(std::move(list)),
      ns_(std::move(ns)),
      labels_(list_.items.size()),
      records_(list_.items.size()) {
  std::size_t nameBytes = 0;
  for (const auto& m : list_.items) {
    if (!inNamespace(m.metadata.namespace_, ns_)) continue;
    nameBytes += m.metadata.name.size();
    for (const auto& c : m.containers) {
      for (const auto& [resource, quantity] : c.usage) {
        if (resources_.size() < kRecordedResources &&
            std::find(resources_.begin(), resources_.end(), resource) == resources_.end()) {
          resources_.push_back(resource);
        }
      }
    }
  }
  names_ = std::shared_ptr<char[]>(new char[nameBytes]);
  std::size_t nameEnd = 0;
  std::vector<std::size_t> unlabelled;
  for (std::size_t i = 0; i < list_.items.size(); ++i) {
    const auto& m = list_.items[i];
    if (!inNamespace(m.metadata.namespace_, ns_)) continue;
    inNamespace_.push_back(i);
    Record& record = records_[i];
    std::copy(m.metadata.name.begin(), m.metadata.name.end(), names_.get() + nameEnd);
    record.name = std::string_view(names_.get() + nameEnd, m.metadata.name.size());
    nameEnd += m.metadata.name.size();
    record.timestamp = m.timestamp;
    record.window = m.window;
    for (std::size_t r = 0; r < resources_.size(); ++r) {
      if (auto usage = podResourceUsage(m, resources_[r], "")) {
        record.usage[r] = *usage;
        record.present |= static_cast<std::uint8_t>(1u << r);
      }
    }
    if (m.metadata.labels.empty()) {
      unlabelled.push_back(i);
      continue;
    }
    labelled_.push_back(i);
    labels_[i] = api::Labels::fromMap(m.metadata.labels);
    for (const auto& [key, value] : m.metadata.labels) byLabel_[key][value].push_back(i);
  }
  // A name twice (a hostile list): both, as the API sent them.
  unlabelled_ = NameTable(unlabelled, list_.items.size(), recordNames());
}

std::optional<std::vector<std::size_t>> IndexedPodMetrics::pick(
    const ResourceMetricsRequest& request, const PodsOfSelector& podsOf) const {
  auto selector = api::Selector::parse(request.labelSelector);
  // An unparsable selector is the API's 400: the plain rule words it.
  if (!selector.ok() || request.ns != ns_) return std::nullopt;
  if (selector->isEverything()) return inNamespace_;
  // Unlabelled items of pods the cache does not know match such a selector: the plain rule.
  if (selector->matches(api::Labels())) return std::nullopt;

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
    const auto& listed = *pods;
    picked.reserve(picked.size() + listed.size());
    unlabelled_.forEachMatch(
        listed.size(), [&](std::size_t k) -> std::string_view { return listed[k]->name; },
        recordNames(), [&](std::size_t p) { picked.push_back(p); });
  }
  // The API's order (often already the pods' name order); a set requirement's values are
  // distinct, so no position comes twice.
  if (!std::is_sorted(picked.begin(), picked.end())) std::sort(picked.begin(), picked.end());
  return picked;
}

Result<std::vector<const api::PodMetrics*>> IndexedPodMetrics::select(
    const ResourceMetricsRequest& request, const PodsOfSelector& podsOf,
    const PodLabelsLookup& podLabels) const {
  auto picked = pick(request, podsOf);
  if (!picked) return selectPodMetricsIn(request, list_.items, podLabels);
  std::vector<const api::PodMetrics*> out;
  out.reserve(picked->size());
  for (auto i : *picked) out.push_back(&list_.items[i]);
  return out;
}

Result<PodMetricsResult> IndexedPodMetrics::resourceMetrics(
    const ResourceMetricsRequest& request, const std::string& resource,
    const std::string& container, const PodsOfSelector& podsOf,
    const PodLabelsLookup& podLabels) const {
  const auto recorded = std::find(resources_.begin(), resources_.end(), resource);
  auto picked =
      container.empty() && recorded != resources_.end() ? pick(request, podsOf) : std::nullopt;
  if (!picked) {
    auto selected = select(request, podsOf, podLabels);
    if (!selected.ok()) return resourceFetchError(selected.error());
    return resourceMetricsFromPodMetrics(*selected, resource, container);
  }
  if (picked->empty()) return noResourceMetricsError();
  const std::size_t r = static_cast<std::size_t>(recorded - resources_.begin());
  const auto bit = static_cast<std::uint8_t>(1u << r);
  PodMetricsResult result;
  result.timestamp = records_[picked->front()].timestamp;
  replicacalc::PodMetricsInfo::Builder samples;
  samples.reserve(picked->size());
  samples.keepAlive(names_);
  for (auto i : *picked) {
    const Record& record = records_[i];
    if (record.present & bit) {
      samples.addKept(record.name,
                      replicacalc::PodMetric{record.usage[r], record.timestamp, record.window});
    }
  }
  result.metrics = std::move(samples).build();
  return result;
}

}  // namespace hpa::metricsclient
