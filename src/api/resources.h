#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpa::api {

// Resource amounts in milli-units by resource name (requests are summed as milli-values
// upstream), packed into one string: pods are cached by the thousand, and a vector of
// {name, value} structs costs an allocation and a full struct per entry where a packed record
// costs little more than its name and value.
// A container's entry may also hold the value the kubelet reports as actuated
// (status.containerStatuses[].resources.requests) while an in-place resize has not caught up
// with spec; it is kept only when it differs from spec, so a pod not being resized pays nothing.
// It may also hold the container's limit (spec.containers[].resources.limits), for utilization
// against limits: 8 bytes in the same record, so a resource without a limit pays nothing.
// Resource names are qualified names and never contain NUL; a name that does is dropped.
class ResourceList {
 public:
  struct Entry {
    std::string_view name;
    std::optional<std::int64_t> milli;     // as in spec
    std::optional<std::int64_t> actuated;  // as actuated, when it differs from spec
    std::optional<std::int64_t> limit;     // the limit, when there is one
    bool operator==(const Entry&) const = default;
  };

  ResourceList() = default;
  ResourceList(std::initializer_list<std::pair<std::string_view, std::int64_t>> entries);
  // Spec values, and limits, in any order, packed in one allocation (a later duplicate name
  // wins).
  static ResourceList fromValues(std::vector<std::pair<std::string, std::int64_t>> values,
                                 std::vector<std::pair<std::string, std::int64_t>> limits = {});

  // The spec value of `name`; nullopt when absent.
  std::optional<std::int64_t> get(std::string_view name) const;
  // The actuated value of `name` when it differs from spec; nullopt otherwise.
  std::optional<std::int64_t> actuated(std::string_view name) const;
  // The limit of `name`; nullopt when there is none.
  std::optional<std::int64_t> limit(std::string_view name) const;
  void set(std::string_view name, std::int64_t milli);
  // Records the actuated value; dropped when equal to the spec value.
  void setActuated(std::string_view name, std::int64_t milli);
  void setLimit(std::string_view name, std::int64_t milli);

  std::vector<Entry> entries() const;  // sorted by name
  bool empty() const { return packed_.empty(); }
  bool hasActuated() const;
  // Heap bytes owned (for memory accounting of caches).
  size_t heapBytes() const;
  bool operator==(const ResourceList& other) const = default;

 private:
  void put(std::string_view name, std::optional<std::int64_t> milli,
           std::optional<std::int64_t> actuated, std::optional<std::int64_t> limit);
  std::string_view records() const;
  // Empty, or a header byte (whether any record holds an actuated value, so that asking a list
  // without any costs one byte) and the records sorted by name: name, NUL, flags, then 8 bytes
  // per value present (spec, actuated, limit, in that order).
  std::string packed_;
};

}  // namespace hpa::api
