#include "api/pod.h"

namespace hpa::api {
namespace {

size_t stringHeap(const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; }

size_t containersHeap(const std::vector<ContainerRequests>& list) {
  size_t bytes = list.capacity() * sizeof(ContainerRequests);
  for (const auto& c : list) bytes += stringHeap(c.name) + c.requests.heapBytes();
  return bytes;
}

}  // namespace

size_t Pod::footprintBytes() const {
  size_t bytes = sizeof(Pod);
  bytes += stringHeap(name) + stringHeap(namespace_) + stringHeap(resourceVersion);
  bytes += labels.heapBytes();
  bytes += containersHeap(containers) + containersHeap(initContainers);
  if (podRequests) bytes += podRequests->heapBytes();
  bytes += overhead.heapBytes();
  if (controller) bytes += stringHeap(controller->kind) + stringHeap(controller->name);
  return bytes;
}

}  // namespace hpa::api
