#pragma once

#include <charconv>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace hpa::controller {

// Upstream's staleness guard (StaleControllerConsistencyHPA, v1.37): the resourceVersion of our
// last status write per HPA, so that a worker does not reconcile from a cache that has not yet
// seen that write. Thread-safe.
class StalenessGuard {
 public:
  void record(const std::string& key, const std::string& resourceVersion) {
    auto rv = parse(resourceVersion);
    if (!rv) return;
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = written_[key];
    if (*rv > slot) slot = *rv;
  }
  // The written version when the cache (at `cacheVersion`) is older than it; otherwise clears
  // the record and returns nullopt. An unknown or unparsable cache version counts as ready.
  // `objectVersion` is the cached object's own version: an informer records its list/watch
  // version only after the event's handlers ran, so for that moment the object is newer than the
  // cache's version, and an object at or past our write is as current as the guard asks.
  std::optional<std::string> staleAgainst(const std::string& key, const std::string& cacheVersion,
                                          const std::string& objectVersion = {}) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = written_.find(key);
    if (it == written_.end()) return std::nullopt;
    auto cache = parse(cacheVersion);
    auto object = parse(objectVersion);
    if (object && *object >= it->second) cache = object;
    if (cache && *cache < it->second) return std::to_string(it->second);
    written_.erase(it);
    return std::nullopt;
  }
  void forget(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    written_.erase(key);
  }

 private:
  static std::optional<unsigned long long> parse(const std::string& rv) {
    unsigned long long v = 0;
    auto [p, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), v);
    if (rv.empty() || ec != std::errc() || p != rv.data() + rv.size()) return std::nullopt;
    return v;
  }

  std::mutex mu_;
  std::map<std::string, unsigned long long> written_;
};

}  // namespace hpa::controller
