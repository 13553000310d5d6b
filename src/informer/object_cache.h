#pragma once

#include <map>
#include <memory>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

namespace hpa::informer {

// The local copy of one resource collection: immutable objects shared with readers, keyed
// "namespace/name" and indexed by namespace. Thread-safe (many readers, one writer at a time).
template <typename T>
class ObjectCache {
 public:
  using Ptr = std::shared_ptr<const T>;

  Ptr get(const std::string& key) const {
    std::shared_lock lock(mu_);
    auto it = objects_.find(key);
    return it == objects_.end() ? nullptr : it->second;
  }
  std::vector<Ptr> list(const std::string& ns) const {
    std::shared_lock lock(mu_);
    std::vector<Ptr> out;
    auto idx = byNamespace_.find(ns);
    if (idx == byNamespace_.end()) return out;
    out.reserve(idx->second.size());
    for (const auto& key : idx->second) out.push_back(objects_.at(key));
    return out;
  }
  std::vector<std::pair<std::string, Ptr>> all() const {
    std::shared_lock lock(mu_);
    return {objects_.begin(), objects_.end()};
  }
  std::size_t size() const {
    std::shared_lock lock(mu_);
    return objects_.size();
  }

  // Returns the previous object (nullptr if none).
  Ptr put(const std::string& ns, const std::string& key, Ptr obj) {
    std::unique_lock lock(mu_);
    auto& slot = objects_[key];
    Ptr old = std::move(slot);
    slot = std::move(obj);
    byNamespace_[ns].insert(key);
    return old;
  }
  Ptr remove(const std::string& ns, const std::string& key) {
    std::unique_lock lock(mu_);
    auto it = objects_.find(key);
    if (it == objects_.end()) return nullptr;
    Ptr old = std::move(it->second);
    objects_.erase(it);
    if (auto idx = byNamespace_.find(ns); idx != byNamespace_.end()) {
      idx->second.erase(key);
      if (idx->second.empty()) byNamespace_.erase(idx);
    }
    return old;
  }

 private:
  mutable std::shared_mutex mu_;
  std::map<std::string, Ptr> objects_;
  std::map<std::string, std::set<std::string>> byNamespace_;
};

}  // namespace hpa::informer
