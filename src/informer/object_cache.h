#pragma once

#include <concepts>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/meta.h"

namespace hpa::informer {

// An object that carries its own name (a `cachedName(const T&)` found by argument-dependent
// lookup) is keyed in the cache by a view of that name, not by a copy of it.
template <typename T>
concept NamesItself = requires(const T& t) {
  { cachedName(t) } -> std::convertible_to<std::string_view>;
};

// The local copy of one resource collection: immutable objects shared with readers, held per
// namespace and name (keys "namespace/name" are composed, not stored; an object that names
// itself is keyed by a view of its own name, so a cached pod costs one map node and no second
// copy of its name). Thread-safe (many readers, one writer at a time).
template <typename T>
class ObjectCache {
 public:
  using Ptr = std::shared_ptr<const T>;

  Ptr get(const std::string& key) const {
    auto [ns, name] = api::splitObjectKey(key);
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
      for (const auto& [name, obj] : objects) {
        std::string key;
        if (!ns.empty()) key.append(ns).append("/");
        key.append(name);
        out.emplace_back(std::move(key), obj);
      }
    }
    return out;
  }
  std::size_t size() const {
    std::shared_lock lock(mu_);
    return size_;
  }

  // `key` is "namespace/name" (or "name" for cluster-scoped objects, with ns ""); for an object
  // that names itself, its name is the key's name part. Returns the previous object (nullptr if
  // none).
  Ptr put(const std::string& ns, const std::string& key, Ptr obj) {
    if constexpr (NamesItself<T>) {
      const std::string_view name = cachedName(*obj);
      std::unique_lock lock(mu_);
      auto& objects = byNamespace_[ns];
      auto it = objects.find(name);
      if (it == objects.end()) {
        objects.emplace(name, std::move(obj));
        ++size_;
        return nullptr;
      }
      // The key views the previous object's name, which dies with it: point the key at the new
      // object's name (moving the shared_ptr leaves the object, and so the view, in place).
      auto node = objects.extract(it);
      Ptr old = std::move(node.mapped());
      node.key() = name;
      node.mapped() = std::move(obj);
      objects.insert(std::move(node));
      return old;
    } else {
      const std::string name = api::splitObjectKey(key).second;
      std::unique_lock lock(mu_);
      auto& slot = byNamespace_[ns][name];
      Ptr old = std::move(slot);
      slot = std::move(obj);
      if (!old) ++size_;
      return old;
    }
  }
  Ptr remove(const std::string& ns, const std::string& key) {
    const std::string name = api::splitObjectKey(key).second;
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
  using NameKey = std::conditional_t<NamesItself<T>, std::string_view, std::string>;

  mutable std::shared_mutex mu_;
  std::map<std::string, std::map<NameKey, Ptr, std::less<>>> byNamespace_;
  std::size_t size_ = 0;
};

}  // namespace hpa::informer
