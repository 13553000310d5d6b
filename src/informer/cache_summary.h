#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "informer/object_cache.h"

namespace hpa::informer {

// What a cache holds, in two numbers a script can compare with the server's own list: the
// object count, and a digest that any two holders of the same objects (namespace/name at the
// same resourceVersion) agree on, whatever the order. The digest is the sum modulo 2^32 of the
// 32-bit FNV-1a hash of "namespace/name resourceVersion" (just "name ..." when cluster-scoped)
// per object; 32 bits so that it is exact as a Prometheus sample. tools: hack/soak.sh.
struct CacheSummary {
  std::size_t objects = 0;
  std::uint32_t digest = 0;
  bool operator==(const CacheSummary&) const = default;
};

inline std::uint32_t fnv1a32(std::string_view bytes) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

// `versionOf(object)` is the object's resourceVersion.
template <typename T, typename VersionOf>
CacheSummary summarize(const ObjectCache<T>& cache, VersionOf versionOf) {
  CacheSummary s;
  for (const auto& [key, object] : cache.all()) {
    ++s.objects;
    s.digest += fnv1a32(key + " " + versionOf(*object));
  }
  return s;
}

}  // namespace hpa::informer
