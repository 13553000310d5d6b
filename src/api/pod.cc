#include "api/pod.h"

namespace hpa::api {
namespace {

size_t stringHeap(const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; }

size_t amountsHeap(const ResourceAmounts& list) {
  size_t bytes = list.capacity() * sizeof(ResourceAmount);
  for (const auto& r : list) bytes += stringHeap(r.name);
  return bytes;
}

size_t containersHeap(const std::vector<ContainerRequests>& list) {
  size_t bytes = list.capacity() * sizeof(ContainerRequests);
  for (const auto& c : list) bytes += stringHeap(c.name) + amountsHeap(c.requests);
  return bytes;
}

}  // namespace

std::optional<std::int64_t> findResource(const ResourceAmounts& list, std::string_view name) {
  for (const auto& r : list) {
    if (r.name == name) return r.milli;
  }
  return std::nullopt;
}

size_t Pod::footprintBytes() const {
  size_t bytes = sizeof(Pod);
  bytes += stringHeap(name) + stringHeap(namespace_) + stringHeap(resourceVersion) +
           stringHeap(phase);
  bytes += labels.heapBytes();
  bytes += containersHeap(containers) + containersHeap(initContainers);
  if (podRequests) bytes += amountsHeap(*podRequests);
  bytes += amountsHeap(overhead);
  return bytes;
}

}  // namespace hpa::api
