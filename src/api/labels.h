#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpa::api {

// A set of labels kept as a sorted flat vector: small (Pods are cached by the thousand) and
// cheap to match against.
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
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  // Heap bytes owned (for memory accounting of caches).
  size_t heapBytes() const;

  bool operator==(const Labels& other) const = default;

 private:
  std::vector<Entry> entries_;
};

}  // namespace hpa::api
