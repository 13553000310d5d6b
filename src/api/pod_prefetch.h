#pragma once

// Cache-line prefetches of a cached Pod, for code that walks many pods that are far apart in
// memory (at scale, a reconcile's pods are cache misses, one per line touched). They depend on
// the order of Pod's fields (api/pod.h): the fields a reconcile reads of every pod come first, up
// to `overhead`. The assertions below break the build, not the speed, when a field moves.
//
// A prefetch is a hint: it never changes what the program computes, only when memory arrives.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "api/pod.h"

namespace hpa::api {

// Offsets are meaningful for a standard-layout type only.
static_assert(std::is_standard_layout_v<Pod>, "Pod's prefetch reads its field offsets");

// The head: the fields every reconcile reads, before `overhead` (which only pods with
// pod-level requests read) and the fields only the cache and owner selection read.
inline constexpr std::size_t kPodHeadEnd = offsetof(Pod, overhead);
static_assert(offsetof(Pod, name) < kPodHeadEnd);
static_assert(offsetof(Pod, labels) < kPodHeadEnd);
static_assert(offsetof(Pod, phase) < kPodHeadEnd);
static_assert(offsetof(Pod, creationTimestamp) < kPodHeadEnd);
static_assert(offsetof(Pod, deletionTimestamp) < kPodHeadEnd);
static_assert(offsetof(Pod, startTime) < kPodHeadEnd);
static_assert(offsetof(Pod, ready) < kPodHeadEnd);
static_assert(offsetof(Pod, containers) < kPodHeadEnd);
static_assert(offsetof(Pod, initContainers) < kPodHeadEnd);
static_assert(offsetof(Pod, podRequests) < kPodHeadEnd);
// The rest stays out of the head's lines, which it would otherwise lengthen.
static_assert(offsetof(Pod, namespace_) > kPodHeadEnd);
static_assert(offsetof(Pod, resourceVersion) > kPodHeadEnd);
static_assert(offsetof(Pod, controller) > kPodHeadEnd);
// The head is the object's first four lines; more means a field grew or moved into it.
inline constexpr std::uintptr_t kCacheLine = 64;
static_assert(kPodHeadEnd <= 4 * kCacheLine,
              "the fields a reconcile reads no longer fit in four lines");

// The lines of `pod`'s head (the object itself, not what its fields point to).
inline void prefetchPodHead(const Pod& pod) {
  const auto first = reinterpret_cast<std::uintptr_t>(&pod) & ~(kCacheLine - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(&pod) + kPodHeadEnd;
  for (std::uintptr_t line = first; line < end; line += kCacheLine) {
    // A cache line's address, only ever prefetched (never dereferenced).
    __builtin_prefetch(reinterpret_cast<const void*>(line));  // NOLINT(performance-no-int-to-ptr)
  }
}

// What the head points to and every reconcile reads: the name, the packed labels, and the first
// container's name and requests. Call it once the head has arrived (its pointers are read here).
inline void prefetchPodHeap(const Pod& pod) {
  __builtin_prefetch(pod.name.data());
  __builtin_prefetch(pod.labels.packed().data());
  if (!pod.containers.empty()) {
    // A container's requests may begin on the line after its name's.
    __builtin_prefetch(pod.containers.data());
    __builtin_prefetch(&pod.containers.front().requests);
  }
}

// A walk over a pod list in order that fetches the pods ahead of it: the heads `kAhead` pods
// ahead, what they point to half as far (by then the head has arrived), so that the misses of
// several pods overlap instead of queueing. Call before(i) before reading pods[i].
class PodListPrefetcher {
 public:
  explicit PodListPrefetcher(const std::vector<std::shared_ptr<const Pod>>& pods) : pods_(pods) {}

  void before(std::size_t i) const {
    if (i + kAhead < pods_.size()) prefetchPodHead(*pods_[i + kAhead]);
    if (i + kAhead / 2 < pods_.size()) prefetchPodHeap(*pods_[i + kAhead / 2]);
  }

 private:
  // Far enough ahead to cover a miss's latency with the work of a few pods of a filter, near
  // enough that the lines are still cached when the walk arrives.
  static constexpr std::size_t kAhead = 8;
  const std::vector<std::shared_ptr<const Pod>>& pods_;
};

}  // namespace hpa::api
