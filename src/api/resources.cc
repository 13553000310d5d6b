#include "api/resources.h"

#include <algorithm>
#include <cstring>

namespace hpa::api {
namespace {

constexpr char kHasSpec = 1;
constexpr char kHasActuated = 2;
constexpr char kHasLimit = 4;
// The header byte before the records: whether any record holds an actuated value.
constexpr char kAnyActuated = 1;
constexpr size_t kValueBytes = sizeof(std::int64_t);

// The bytes of the values a record's flags say follow them.
size_t valueBytes(char flags) {
  return kValueBytes * static_cast<size_t>((flags & kHasSpec) + ((flags & kHasActuated) >> 1) +
                                           ((flags & kHasLimit) >> 2));
}

std::int64_t readValue(std::string_view packed, size_t pos) {
  std::int64_t v;
  std::memcpy(&v, packed.data() + pos, kValueBytes);
  return v;
}

void appendValue(std::string& out, std::int64_t v) {
  char bytes[kValueBytes];
  std::memcpy(bytes, &v, kValueBytes);
  out.append(bytes, kValueBytes);
}

// Calls f(entry, recordStart, recordEnd) for each record until it returns false.
template <typename F>
void eachRecord(std::string_view packed, F f) {
  size_t pos = 0;
  while (pos < packed.size()) {
    const size_t nameEnd = packed.find('\0', pos);
    if (nameEnd == std::string_view::npos || nameEnd + 1 >= packed.size()) return;
    const char flags = packed[nameEnd + 1];
    size_t next = nameEnd + 2;
    ResourceList::Entry e{packed.substr(pos, nameEnd - pos), std::nullopt, std::nullopt,
                          std::nullopt};
    if (next + valueBytes(flags) > packed.size()) return;
    for (auto [bit, value] : {std::pair{kHasSpec, &e.milli}, std::pair{kHasActuated, &e.actuated},
                              std::pair{kHasLimit, &e.limit}}) {
      if (!(flags & bit)) continue;
      *value = readValue(packed, next);
      next += kValueBytes;
    }
    if (!f(e, pos, next)) return;
    pos = next;
  }
}

// std::string_view::compare for the short names of resources, without a call into the library.
int compareNames(std::string_view a, std::string_view b) {
  const size_t common = std::min(a.size(), b.size());
  for (size_t i = 0; i < common; ++i) {
    const auto x = static_cast<unsigned char>(a[i]);
    const auto y = static_cast<unsigned char>(b[i]);
    if (x != y) return x < y ? -1 : 1;
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

// Where `name`'s record keeps its flags (its values follow them), npos when there is none or
// the list is cut short before it ends. Read for every container of every pod of every reconcile,
// so it scans the short records in place and builds nothing.
size_t findFlags(std::string_view packed, std::string_view name) {
  const char* data = packed.data();
  const size_t size = packed.size();
  size_t pos = 0;
  while (pos < size) {
    size_t nameEnd = pos;
    while (nameEnd < size && data[nameEnd] != '\0') ++nameEnd;
    if (nameEnd + 1 >= size) return std::string_view::npos;
    const char flags = data[nameEnd + 1];
    const size_t next = nameEnd + 2 + valueBytes(flags);
    if (next > size) return std::string_view::npos;
    const int order = compareNames(std::string_view(data + pos, nameEnd - pos), name);
    if (order == 0) return nameEnd + 1;
    if (order > 0) return std::string_view::npos;  // sorted: past the name
    pos = next;
  }
  return std::string_view::npos;
}

std::optional<ResourceList::Entry> find(std::string_view packed, std::string_view name) {
  const size_t at = findFlags(packed, name);
  if (at == std::string_view::npos) return std::nullopt;
  const char flags = packed[at];
  ResourceList::Entry e{packed.substr(at - 1 - name.size(), name.size()), std::nullopt,
                        std::nullopt, std::nullopt};
  size_t value = at + 1;
  for (auto [bit, out] : {std::pair{kHasSpec, &e.milli}, std::pair{kHasActuated, &e.actuated},
                          std::pair{kHasLimit, &e.limit}}) {
    if (!(flags & bit)) continue;
    *out = readValue(packed, value);
    value += kValueBytes;
  }
  return e;
}

using Values = std::vector<std::pair<std::string, std::int64_t>>;

void sortByName(Values& values) {
  // JSON objects arrive sorted by key; anything else is sorted here.
  auto byName = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(values.begin(), values.end(), byName))
    std::stable_sort(values.begin(), values.end(), byName);
}

// Calls f(name, spec, limit) once per name of two lists sorted by name, in order, with the
// value of each list that has the name (of duplicates in one list, the later one). Names with
// a NUL are left out.
template <typename F>
void eachMerged(const Values& specs, const Values& limits, F f) {
  auto lastOfName = [](const Values& v, size_t k) {
    while (k + 1 < v.size() && v[k + 1].first == v[k].first) ++k;
    return k;
  };
  size_t i = 0;
  size_t j = 0;
  while (i < specs.size() || j < limits.size()) {
    if (i < specs.size()) i = lastOfName(specs, i);
    if (j < limits.size()) j = lastOfName(limits, j);
    const bool spec = i < specs.size() && (j == limits.size() || specs[i].first <= limits[j].first);
    const bool limit =
        j < limits.size() && (i == specs.size() || limits[j].first <= specs[i].first);
    const std::string& name = spec ? specs[i].first : limits[j].first;
    if (name.find('\0') == std::string::npos) {
      f(name, spec ? std::optional<std::int64_t>(specs[i].second) : std::nullopt,
        limit ? std::optional<std::int64_t>(limits[j].second) : std::nullopt);
    }
    if (spec) ++i;
    if (limit) ++j;
  }
}

}  // namespace

ResourceList::ResourceList(
    std::initializer_list<std::pair<std::string_view, std::int64_t>> entries) {
  for (const auto& [name, milli] : entries) set(name, milli);
}

ResourceList ResourceList::fromValues(Values values, Values limits) {
  sortByName(values);
  sortByName(limits);
  size_t bytes = 0;
  eachMerged(values, limits, [&](const std::string& name, auto spec, auto limit) {
    bytes += name.size() + 2 + (spec ? kValueBytes : 0) + (limit ? kValueBytes : 0);
  });
  ResourceList out;
  out.packed_.reserve(bytes + 1);
  out.packed_.push_back('\0');  // the header: no actuated values
  eachMerged(values, limits, [&](const std::string& name, auto spec, auto limit) {
    out.packed_.append(name).push_back('\0');
    out.packed_.push_back(static_cast<char>((spec ? kHasSpec : 0) | (limit ? kHasLimit : 0)));
    if (spec) appendValue(out.packed_, *spec);
    if (limit) appendValue(out.packed_, *limit);
  });
  if (out.packed_.size() == 1) out.packed_.clear();
  return out;
}

std::string_view ResourceList::records() const {
  return packed_.empty() ? std::string_view() : std::string_view(packed_).substr(1);
}

std::optional<std::int64_t> ResourceList::get(std::string_view name) const {
  const std::string_view recs = records();
  const size_t at = findFlags(recs, name);
  if (at == std::string_view::npos || !(recs[at] & kHasSpec)) return std::nullopt;
  return readValue(recs, at + 1);
}

std::optional<std::int64_t> ResourceList::actuated(std::string_view name) const {
  // Asked of every container of every pod at every reconcile, and a resize is rare.
  if (!hasActuated()) return std::nullopt;
  const std::string_view recs = records();
  const size_t at = findFlags(recs, name);
  if (at == std::string_view::npos || !(recs[at] & kHasActuated)) return std::nullopt;
  return readValue(recs, at + 1 + ((recs[at] & kHasSpec) ? kValueBytes : 0));
}

std::optional<std::int64_t> ResourceList::limit(std::string_view name) const {
  const std::string_view recs = records();
  const size_t at = findFlags(recs, name);
  if (at == std::string_view::npos || !(recs[at] & kHasLimit)) return std::nullopt;
  return readValue(recs, at + 1 + valueBytes(static_cast<char>(recs[at] & ~kHasLimit)));
}

void ResourceList::set(std::string_view name, std::int64_t milli) {
  auto e = find(records(), name);
  std::optional<std::int64_t> actuated = e ? e->actuated : std::nullopt;
  if (actuated == milli) actuated.reset();
  put(name, milli, actuated, e ? e->limit : std::nullopt);
}

void ResourceList::setActuated(std::string_view name, std::int64_t milli) {
  auto e = find(records(), name);
  std::optional<std::int64_t> spec = e ? e->milli : std::nullopt;
  put(name, spec, spec == milli ? std::nullopt : std::optional<std::int64_t>(milli),
      e ? e->limit : std::nullopt);
}

void ResourceList::setLimit(std::string_view name, std::int64_t milli) {
  auto e = find(records(), name);
  put(name, e ? e->milli : std::nullopt, e ? e->actuated : std::nullopt, milli);
}

void ResourceList::put(std::string_view name, std::optional<std::int64_t> milli,
                       std::optional<std::int64_t> actuated, std::optional<std::int64_t> limit) {
  if (name.find('\0') != std::string_view::npos) return;
  // The record goes where the sort order puts it, replacing one of the same name; offsets are
  // the records', one past the header.
  if (packed_.empty()) packed_.push_back('\0');
  const std::string_view recs = records();
  size_t at = recs.size();
  size_t replacedEnd = at;
  eachRecord(recs, [&](const Entry& e, size_t start, size_t end) {
    if (e.name < name) return true;
    at = start;
    replacedEnd = e.name == name ? end : start;
    return false;
  });
  std::string record(name);
  record.push_back('\0');
  record.push_back(static_cast<char>((milli ? kHasSpec : 0) | (actuated ? kHasActuated : 0) |
                                     (limit ? kHasLimit : 0)));
  if (milli) appendValue(record, *milli);
  if (actuated) appendValue(record, *actuated);
  if (limit) appendValue(record, *limit);
  if (!milli && !actuated && !limit) record.clear();
  packed_.replace(1 + at, replacedEnd - at, record);
  bool anyActuated = false;
  eachRecord(records(), [&](const Entry& e, size_t, size_t) {
    anyActuated = e.actuated.has_value();
    return !anyActuated;
  });
  if (packed_.size() == 1)
    packed_.clear();
  else
    packed_[0] = anyActuated ? kAnyActuated : '\0';
  packed_.shrink_to_fit();
}

std::vector<ResourceList::Entry> ResourceList::entries() const {
  std::vector<Entry> out;
  eachRecord(records(), [&](const Entry& e, size_t, size_t) {
    out.push_back(e);
    return true;
  });
  return out;
}

bool ResourceList::hasActuated() const { return !packed_.empty() && (packed_[0] & kAnyActuated); }

size_t ResourceList::heapBytes() const {
  // libstdc++ keeps strings of up to 15 characters inline.
  return packed_.capacity() > 15 ? packed_.capacity() + 1 : 0;
}

}  // namespace hpa::api
