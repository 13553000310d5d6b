#include "sim/pod_index.h"

#include <algorithm>
#include <mutex>

namespace hpa::sim {
namespace {

using Op = api::Selector::Op;

std::string postingKey(const std::string& key, const std::string& value) {
  std::string k;
  k.reserve(key.size() + value.size() + 1);
  k.append(key).push_back('\0');
  k.append(value);
  return k;
}

// A requirement every matching pod satisfies through one of its labels' exact values.
bool narrowsByValue(const api::Selector::Requirement& r) {
  return r.op == Op::Equals || r.op == Op::DoubleEquals || r.op == Op::In;
}

}  // namespace

PodIndex::PodIndex(Classifier classify) : classify_(std::move(classify)) {}

void PodIndex::countLocked(int workload, bool ready, int delta) {
  totals_.pods += delta;
  totals_.ready += ready ? delta : 0;
  if (workload < 0) return;
  if (static_cast<size_t>(workload) >= counts_.size()) counts_.resize(workload + 1);
  counts_[workload].pods += delta;
  counts_[workload].ready += ready ? delta : 0;
}

void PodIndex::removeLocked(Namespace& ns, std::map<std::string, Entry>::iterator it) {
  const Entry& e = it->second;
  for (const auto& [k, v] : e.pod->labels.toMap()) {
    auto posting = ns.byLabel.find(postingKey(k, v));
    if (posting == ns.byLabel.end()) continue;
    posting->second.erase(it->first);
    if (posting->second.empty()) ns.byLabel.erase(posting);
  }
  countLocked(e.workload, e.pod->ready, -1);
  ns.pods.erase(it);
}

void PodIndex::upsert(SimPod pod) {
  std::unique_lock lock(mu_);
  auto& ns = namespaces_[pod.namespace_];
  auto it = ns.pods.find(pod.name);
  int workload = -1;
  if (it != ns.pods.end() && it->second.pod->labels == pod.labels) {
    workload = it->second.workload;  // same labels, same workload: no need to classify again
  } else {
    // Classified outside the lock: the classifier may take locks of its own.
    lock.unlock();
    workload = classify_ ? classify_(pod.namespace_, pod.labels) : -1;
    lock.lock();
    it = ns.pods.find(pod.name);  // the map may have changed while unlocked
  }
  if (it != ns.pods.end()) removeLocked(ns, it);
  auto shared = std::make_shared<const SimPod>(std::move(pod));
  for (const auto& [k, v] : shared->labels.toMap())
    ns.byLabel[postingKey(k, v)].insert(shared->name);
  countLocked(workload, shared->ready, +1);
  const std::string& name = shared->name;  // lives in the object the entry keeps
  ns.pods.emplace(name, Entry{shared, workload});
}

void PodIndex::remove(const std::string& ns, const std::string& name) {
  std::unique_lock lock(mu_);
  auto nsIt = namespaces_.find(ns);
  if (nsIt == namespaces_.end()) return;
  auto it = nsIt->second.pods.find(name);
  if (it == nsIt->second.pods.end()) return;
  removeLocked(nsIt->second, it);
  if (nsIt->second.pods.empty()) namespaces_.erase(nsIt);
}

PodView PodIndex::viewLocked(const Entry& e) const {
  PodView v{e.pod, e.workload, 0};
  if (e.workload >= 0 && static_cast<size_t>(e.workload) < counts_.size())
    v.workloadReady = counts_[e.workload].ready;
  return v;
}

std::vector<PodView> PodIndex::select(const std::string& ns, const api::Selector& selector,
                                      std::size_t* examined) const {
  std::vector<PodView> out;
  if (examined) *examined = 0;
  if (selector.isNothing()) return out;
  std::shared_lock lock(mu_);
  auto nsIt = namespaces_.find(ns);
  if (nsIt == namespaces_.end()) return out;
  const Namespace& space = nsIt->second;

  // The narrowest value requirement decides which pods are looked at; the whole selector then
  // decides which of those match.
  const api::Selector::Requirement* narrowest = nullptr;
  size_t narrowestSize = 0;
  for (const auto& r : selector.requirements()) {
    if (!narrowsByValue(r)) continue;
    size_t size = 0;
    for (const auto& v : r.values) {
      auto posting = space.byLabel.find(postingKey(r.key, v));
      if (posting != space.byLabel.end()) size += posting->second.size();
    }
    if (!narrowest || size < narrowestSize) {
      narrowest = &r;
      narrowestSize = size;
    }
  }

  auto consider = [&](const Entry& e) {
    if (examined) ++*examined;
    if (selector.matches(e.pod->labels)) out.push_back(viewLocked(e));
  };
  if (!narrowest) {
    for (const auto& [name, e] : space.pods) consider(e);
    return out;
  }
  std::vector<const std::string*> names;
  names.reserve(narrowestSize);
  for (const auto& v : narrowest->values) {
    auto posting = space.byLabel.find(postingKey(narrowest->key, v));
    if (posting == space.byLabel.end()) continue;
    for (const auto& name : posting->second) names.push_back(&name);
  }
  // Values of one key are exclusive (a pod has one value per key): no duplicates, only order.
  if (narrowest->values.size() > 1) {
    std::sort(names.begin(), names.end(),
              [](const std::string* a, const std::string* b) { return *a < *b; });
  }
  for (const auto* name : names) {
    auto it = space.pods.find(*name);
    if (it != space.pods.end()) consider(it->second);
  }
  return out;
}

std::optional<PodView> PodIndex::get(const std::string& ns, const std::string& name) const {
  std::shared_lock lock(mu_);
  auto nsIt = namespaces_.find(ns);
  if (nsIt == namespaces_.end()) return std::nullopt;
  auto it = nsIt->second.pods.find(name);
  if (it == nsIt->second.pods.end()) return std::nullopt;
  return viewLocked(it->second);
}

WorkloadCount PodIndex::workloadCount(int w) const {
  std::shared_lock lock(mu_);
  if (w < 0 || static_cast<size_t>(w) >= counts_.size()) return {};
  return counts_[w];
}

std::vector<WorkloadCount> PodIndex::workloadCounts(int n) const {
  std::shared_lock lock(mu_);
  std::vector<WorkloadCount> out(std::max(n, 0));
  for (size_t i = 0; i < out.size() && i < counts_.size(); ++i) out[i] = counts_[i];
  return out;
}

WorkloadCount PodIndex::totals() const {
  std::shared_lock lock(mu_);
  return totals_;
}

std::vector<SimPod> PodIndex::all() const {
  std::shared_lock lock(mu_);
  std::vector<SimPod> out;
  out.reserve(static_cast<size_t>(totals_.pods));
  for (const auto& [name, ns] : namespaces_) {
    for (const auto& [podName, entry] : ns.pods) out.push_back(*entry.pod);
  }
  return out;
}

}  // namespace hpa::sim
