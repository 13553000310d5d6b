#include "api/labels.h"

namespace hpa::api {
namespace {

// Calls f(key, value) for each record until it returns false.
template <typename F>
void eachRecord(std::string_view packed, F f) {
  size_t pos = 0;
  while (pos < packed.size()) {
    size_t keyEnd = packed.find('\0', pos);
    size_t valueEnd = packed.find('\0', keyEnd + 1);
    if (keyEnd == std::string_view::npos || valueEnd == std::string_view::npos) return;
    if (!f(packed.substr(pos, keyEnd - pos), packed.substr(keyEnd + 1, valueEnd - keyEnd - 1)))
      return;
    pos = valueEnd + 1;
  }
}

bool hasNul(const std::string& s) { return s.find('\0') != std::string::npos; }

std::string pack(const std::map<std::string, std::string>& m) {
  std::string out;
  for (const auto& [k, v] : m) {
    if (hasNul(k) || hasNul(v)) continue;
    out.append(k).push_back('\0');
    out.append(v).push_back('\0');
  }
  out.shrink_to_fit();
  return out;
}

}  // namespace

Labels::Labels(std::initializer_list<Entry> entries) {
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : entries) m[k] = v;
  packed_ = pack(m);
}

Labels Labels::fromMap(const std::map<std::string, std::string>& m) {
  Labels l;
  l.packed_ = pack(m);
  return l;
}

std::optional<std::string_view> Labels::get(std::string_view key) const {
  std::optional<std::string_view> found;
  eachRecord(packed_, [&](std::string_view k, std::string_view v) {
    if (k == key) found = v;
    return !found && k < key;  // sorted: stop once past the key
  });
  return found;
}

void Labels::set(std::string key, std::string value) {
  auto m = toMap();
  m[std::move(key)] = std::move(value);
  packed_ = pack(m);
}

std::map<std::string, std::string> Labels::toMap() const {
  std::map<std::string, std::string> m;
  eachRecord(packed_, [&](std::string_view k, std::string_view v) {
    m.emplace(k, v);
    return true;
  });
  return m;
}

size_t Labels::size() const {
  size_t n = 0;
  eachRecord(packed_, [&](std::string_view, std::string_view) {
    ++n;
    return true;
  });
  return n;
}

size_t Labels::heapBytes() const {
  // libstdc++ keeps strings of up to 15 characters inline.
  return packed_.capacity() > 15 ? packed_.capacity() + 1 : 0;
}

}  // namespace hpa::api
