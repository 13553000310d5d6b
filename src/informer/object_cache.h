#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

namespace hpa::informer {

// The local copy of one resource collection: immutable objects shared with readers, held per
// namespace and name (keys "namespace/name" are composed, not stored, so a cached pod costs one
// map node and its name). Thread-safe (many readers, one writer at a time).
template <typename T>
class ObjectCache {
 public:
  using Ptr = std::shared_ptr<const T>;

  Ptr get(const std::string& key) const {
    auto [ns, name] = split(key);
    std::shared_lock lock(mu_);
    auto nsIt = byNamespace_.find(ns);
    if (nsIt == byNamespace_.end()) return nullptr;
    auto it = nsIt->second.find(name);
    return it == nsIt->second.end() ? nullptr : it->second;
  }
  std::vector<Ptr> list(const std::string& ns) const {
    std::shared_lock lock(mu_);
    std::vector<Ptr> out;
    auto nsIt = byNamespace_.find(ns);
    if (nsIt == byNamespace_.end()) return out;
    out.reserve(nsIt->second.size());
    for (const auto& [name, obj] : nsIt->second) out.push_back(obj);
    return out;
  }
  std::vector<std::pair<std::string, Ptr>> all() const {
    std::shared_lock lock(mu_);
    std::vector<std::pair<std::string, Ptr>> out;
    out.reserve(size_);
    for (const auto& [ns, objects] : byNamespace_) {
      for (const auto& [name, obj] : objects) out.emplace_back(ns.empty() ? name : ns + "/" + name, obj);
    }
    return out;
  }
  std::size_t size() const {
    std::shared_lock lock(mu_);
    return size_;
  }

  // `key` is "namespace/name" (or "name" for cluster-scoped objects, with ns ""). Returns the
  // previous object (nullptr if none).
  Ptr put(const std::string& ns, const std::string& key, Ptr obj) {
    const std::string name = split(key).second;
    std::unique_lock lock(mu_);
    auto& slot = byNamespace_[ns][name];
    Ptr old = std::move(slot);
    slot = std::move(obj);
    if (!old) ++size_;
    return old;
  }
  Ptr remove(const std::string& ns, const std::string& key) {
    const std::string name = split(key).second;
    std::unique_lock lock(mu_);
    auto nsIt = byNamespace_.find(ns);
    if (nsIt == byNamespace_.end()) return nullptr;
    auto it = nsIt->second.find(name);
    if (it == nsIt->second.end()) return nullptr;
    Ptr old = std::move(it->second);
    nsIt->second.erase(it);
    if (nsIt->second.empty()) byNamespace_.erase(nsIt);
    --size_;
    return old;
  }

 private:
  static std::pair<std::string, std::string> split(const std::string& key) {
    auto slash = key.find('/');
    if (slash == std::string::npos) return {"", key};
    return {key.substr(0, slash), key.substr(slash + 1)};
  }

  mutable std::shared_mutex mu_;
  std::map<std::string, std::map<std::string, Ptr>> byNamespace_;
  std::size_t size_ = 0;
};

}  // namespace hpa::informer
