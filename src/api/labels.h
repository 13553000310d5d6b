#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace hpa::api {

// A set of labels packed into one string ("key\0value\0" records sorted by key): Pods are cached
// by the thousand and most label sets are small, so one allocation per set instead of two
// strings per label keeps the cache lean, and matching a selector is a short scan. Kubernetes
// forbids NUL in label keys and values; a label carrying one is dropped.
class Labels {
 public:
  using Entry = std::pair<std::string, std::string>;

  Labels() = default;
  Labels(std::initializer_list<Entry> entries);
  static Labels fromMap(const std::map<std::string, std::string>& m);

  std::optional<std::string_view> get(std::string_view key) const;
  bool has(std::string_view key) const { return get(key).has_value(); }
  void set(std::string key, std::string value);

  std::map<std::string, std::string> toMap() const;
  size_t size() const;
  bool empty() const { return packed_.empty(); }
  // The packed form: a total order and equality over label sets (for de-duplication).
  std::string_view packed() const { return packed_; }
  // Heap bytes owned (for memory accounting of caches).
  size_t heapBytes() const;

  bool operator==(const Labels& other) const = default;

 private:
  std::string packed_;
};

}  // namespace hpa::api
