#include "api/labels.h"

#include <algorithm>

namespace hpa::api {

Labels::Labels(std::initializer_list<Entry> entries) {
  for (const auto& e : entries) set(e.first, e.second);
}

Labels Labels::fromMap(const std::map<std::string, std::string>& m) {
  Labels l;
  l.entries_.assign(m.begin(), m.end());  // std::map iterates in key order: already sorted
  return l;
}

std::optional<std::string_view> Labels::get(std::string_view key) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const Entry& e, std::string_view k) { return e.first < k; });
  if (it == entries_.end() || it->first != key) return std::nullopt;
  return std::string_view(it->second);
}

void Labels::set(std::string key, std::string value) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const Entry& e, const std::string& k) { return e.first < k; });
  if (it != entries_.end() && it->first == key) {
    it->second = std::move(value);
  } else {
    entries_.insert(it, Entry(std::move(key), std::move(value)));
  }
}

std::map<std::string, std::string> Labels::toMap() const { return {entries_.begin(), entries_.end()}; }

size_t Labels::heapBytes() const {
  size_t bytes = entries_.capacity() * sizeof(Entry);
  // libstdc++ keeps strings of up to 15 characters inline.
  for (const auto& [k, v] : entries_) {
    if (k.capacity() > 15) bytes += k.capacity() + 1;
    if (v.capacity() > 15) bytes += v.capacity() + 1;
  }
  return bytes;
}

}  // namespace hpa::api
