#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "common/time.h"

namespace hpa::replicacalc {

// One pod's sample as the metrics client returns it: milli-units, when it was taken and over
// which window it was averaged.
struct PodMetric {
  std::int64_t value = 0;
  Time timestamp;
  Duration window{0};
  bool operator==(const PodMetric&) const = default;
};

// Samples by pod name, one per name, in name order (so sums, and thus results, never depend on
// hashing). Built once per metric read for every pod of a workload, so it is one sorted vector
// whose names live in a few shared blocks, not a tree with a node and a string per pod.
class PodMetricsInfo {
 public:
  using value_type = std::pair<std::string_view, PodMetric>;  // views into this object's names
  using const_iterator = std::vector<value_type>::const_iterator;

  // Samples in any order; of two with one name the later wins, as assigning into a map does.
  class Builder {
   public:
    void reserve(std::size_t n) { samples_.reserve(n); }
    void add(std::string_view name, PodMetric metric);
    // Samples whose names live in storage `owner` keeps: the samples keep `owner` instead of
    // copying the names (a shared list's names, read by every HPA of its namespace).
    void keepAlive(std::shared_ptr<const void> owner) { owner_ = std::move(owner); }
    void addKept(std::string_view name, PodMetric metric) {
      samples_.push_back(Sample{name.data(), 0, name.size(), metric});
    }
    PodMetricsInfo build() &&;

   private:
    struct Sample {
      const char* kept;  // the name in the owner's storage; nullptr: at `offset` in names_
      std::size_t offset;
      std::size_t length;
      PodMetric metric;
    };
    std::vector<char> names_;
    std::vector<Sample> samples_;
    std::shared_ptr<const void> owner_;
  };

  PodMetricsInfo() = default;
  PodMetricsInfo(std::initializer_list<value_type> samples);
  PodMetricsInfo(const PodMetricsInfo& other);
  PodMetricsInfo& operator=(const PodMetricsInfo& other);
  // Moving keeps the blocks, so the views stay valid.
  PodMetricsInfo(PodMetricsInfo&&) noexcept = default;
  PodMetricsInfo& operator=(PodMetricsInfo&&) noexcept = default;

  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const_iterator find(std::string_view name) const;
  // find(), looking at `hint` first: walking pods in name order with the entry after the last one
  // found as the hint, each lookup is one comparison.
  const_iterator find(std::string_view name, const_iterator hint) const;
  bool contains(std::string_view name) const { return find(name) != end(); }
  // Throws std::out_of_range for an unknown name, as std::map::at.
  const PodMetric& at(std::string_view name) const;
  // The sample of `name`, added (zero) when absent.
  PodMetric& operator[](std::string_view name);
  // Drops the entries `drop(entry)` is true for; returns how many.
  template <typename Predicate>
  std::size_t eraseIf(Predicate drop) {
    return std::erase_if(entries_, [&](const value_type& e) { return drop(e); });
  }

  bool operator==(const PodMetricsInfo& other) const { return entries_ == other.entries_; }

 private:
  // A stable copy of `name` (a block's characters never move while this object lives: moving a
  // vector keeps its storage).
  std::string_view keep(std::string_view name);

  std::vector<std::vector<char>> blocks_;
  std::shared_ptr<const void> owner_;  // keeps names a builder was given kept
  std::vector<value_type> entries_;    // by name, ascending, names unique
};

}  // namespace hpa::replicacalc
