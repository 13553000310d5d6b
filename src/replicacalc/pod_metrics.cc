#include "replicacalc/pod_metrics.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hpa::replicacalc {
namespace {

bool byName(const PodMetricsInfo::value_type& e, std::string_view name) { return e.first < name; }

}  // namespace

void PodMetricsInfo::Builder::add(std::string_view name, PodMetric metric) {
  samples_.push_back(Sample{nullptr, names_.size(), name.size(), metric});
  names_.insert(names_.end(), name.begin(), name.end());
}

PodMetricsInfo PodMetricsInfo::Builder::build() && {
  PodMetricsInfo out;
  if (samples_.empty()) return out;
  const char* base = names_.empty() ? nullptr : out.blocks_.emplace_back(std::move(names_)).data();
  out.owner_ = std::move(owner_);
  out.entries_.reserve(samples_.size());
  for (const auto& s : samples_) {
    // An empty name may have no characters anywhere: no pointer is made from nothing.
    const char* name = s.kept ? s.kept : base ? base + s.offset : nullptr;
    out.entries_.emplace_back(std::string_view(name, name ? s.length : 0), s.metric);
  }
  // Stable, so that of equal names the later sample is the last of its run and wins.
  const auto less = [](const value_type& a, const value_type& b) { return a.first < b.first; };
  if (!std::is_sorted(out.entries_.begin(), out.entries_.end(), less)) {
    std::stable_sort(out.entries_.begin(), out.entries_.end(), less);
  }
  auto& e = out.entries_;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (i + 1 < e.size() && e[i + 1].first == e[i].first) continue;
    e[kept++] = e[i];
  }
  e.resize(kept);
  return out;
}

PodMetricsInfo::PodMetricsInfo(std::initializer_list<value_type> samples) {
  Builder b;
  b.reserve(samples.size());
  for (const auto& [name, metric] : samples) b.add(name, metric);
  *this = std::move(b).build();
}

PodMetricsInfo::PodMetricsInfo(const PodMetricsInfo& other) {
  Builder b;
  b.reserve(other.size());
  for (const auto& [name, metric] : other) b.add(name, metric);
  *this = std::move(b).build();
}

PodMetricsInfo& PodMetricsInfo::operator=(const PodMetricsInfo& other) {
  if (this != &other) *this = PodMetricsInfo(other);
  return *this;
}

PodMetricsInfo::const_iterator PodMetricsInfo::find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name, byName);
  return it != entries_.end() && it->first == name ? it : entries_.end();
}

PodMetricsInfo::const_iterator PodMetricsInfo::find(std::string_view name,
                                                    const_iterator hint) const {
  if (hint != entries_.end() && hint->first == name) return hint;
  return find(name);
}

const PodMetric& PodMetricsInfo::at(std::string_view name) const {
  auto it = find(name);
  if (it == end()) throw std::out_of_range("no sample for pod " + std::string(name));
  return it->second;
}

PodMetric& PodMetricsInfo::operator[](std::string_view name) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name, byName);
  if (it != entries_.end() && it->first == name) return it->second;
  return entries_.insert(it, value_type(keep(name), PodMetric{}))->second;
}

std::string_view PodMetricsInfo::keep(std::string_view name) {
  const auto& block = blocks_.emplace_back(name.begin(), name.end());
  return std::string_view(block.data(), block.size());
}

}  // namespace hpa::replicacalc
