#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "api/meta.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "informer/list_watch_loop.h"
#include "informer/object_cache.h"

namespace hpa::informer {

template <typename T>
struct EventHandlers {
  using Ptr = std::shared_ptr<const T>;
  std::function<void(const Ptr&)> onAdd;
  std::function<void(const Ptr& oldObj, const Ptr& newObj)> onUpdate;
  std::function<void(const Ptr&)> onDelete;
};

// A cache of one resource kept current by a ListWatchLoop, decoding each object into T (the
// lean projection the controller needs) and telling handlers what changed. Relists are diffed
// against the cache, so objects deleted while the watch was down reach onDelete. A resync
// period re-announces every cached object through onUpdate(obj, obj). Handlers run on the
// informer's threads, outside its locks; they should only enqueue.
template <typename T>
class Informer final : public ListWatchSink {
 public:
  using Ptr = std::shared_ptr<const T>;
  using Decode = std::function<Result<T>(const nlohmann::json&)>;
  // namespace and name of an object.
  using Identity = std::function<std::pair<std::string, std::string>(const T&)>;

  Informer(ListerWatcher& source, Decode decode, Identity identity, Clock& clock, Logger logger,
           Duration resyncPeriod = Duration(0), ListWatchTiming timing = {})
      : decode_(std::move(decode)),
        identity_(std::move(identity)),
        clock_(clock),
        logger_(logger),
        resyncPeriod_(resyncPeriod),
        loop_(source, *this, clock, logger, timing) {}
  ~Informer() override { stop(); }

  // Before start().
  void addHandlers(EventHandlers<T> handlers) { handlers_.push_back(std::move(handlers)); }

  void start() {
    loop_.start();
    if (resyncPeriod_.count() > 0) resyncThread_ = std::thread([this] { resyncLoop(); });
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    loop_.stop();
    if (resyncThread_.joinable()) resyncThread_.join();
  }
  bool hasSynced() const { return loop_.hasSynced(); }
  const ObjectCache<T>& cache() const { return cache_; }
  std::string lastResourceVersion() const { return loop_.lastResourceVersion(); }
  int completedLists() const { return loop_.completedLists(); }
  // Fails once the list/watch loop has ended without stop() (ListWatchLoop::health).
  Status health() const { return loop_.health(); }

  void replace(std::vector<nlohmann::json> items) override {
    std::map<std::string, std::pair<std::string, Ptr>> fresh;  // key -> (namespace, object)
    for (const auto& item : items) {
      auto obj = decodeLogged(item);
      if (!obj) continue;
      auto [ns, name] = identity_(*obj);
      fresh[api::objectKey(ns, name)] = {ns, std::move(obj)};
    }
    for (const auto& [k, old] : cache_.all()) {
      if (fresh.count(k)) continue;
      auto [ns, name] = identity_(*old);
      if (auto removed = cache_.remove(ns, k)) notifyDelete(removed);
    }
    for (auto& [k, entry] : fresh) {
      Ptr old = cache_.put(entry.first, k, entry.second);
      if (!old) {
        notifyAdd(entry.second);
      } else if (!(*old == *entry.second)) {
        notifyUpdate(old, entry.second);
      }
    }
  }

  void apply(api::WatchEventType type, const nlohmann::json& object) override {
    auto obj = decodeLogged(object);
    if (!obj) return;
    auto [ns, name] = identity_(*obj);
    const std::string k = api::objectKey(ns, name);
    if (type == api::WatchEventType::Deleted) {
      Ptr removed = cache_.remove(ns, k);
      notifyDelete(removed ? removed : obj);
      return;
    }
    Ptr old = cache_.put(ns, k, obj);
    if (old) {
      notifyUpdate(old, obj);
    } else {
      notifyAdd(obj);
    }
  }

 private:
  Ptr decodeLogged(const nlohmann::json& item) {
    auto decoded = decode_(item);
    if (!decoded.ok()) {
      // One bad object must not stop the cache: it is left out and reported.
      logger_.error("skipping an undecodable object", "err", decoded.error().message);
      return nullptr;
    }
    return std::make_shared<const T>(std::move(*decoded));
  }
  void notifyAdd(const Ptr& o) {
    for (auto& h : handlers_) {
      if (h.onAdd) h.onAdd(o);
    }
  }
  void notifyUpdate(const Ptr& a, const Ptr& b) {
    for (auto& h : handlers_) {
      if (h.onUpdate) h.onUpdate(a, b);
    }
  }
  void notifyDelete(const Ptr& o) {
    for (auto& h : handlers_) {
      if (h.onDelete) h.onDelete(o);
    }
  }
  void resyncLoop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      const Time deadline = clock_.now() + resyncPeriod_;
      while (!stopping_ && clock_.now() < deadline) clock_.waitUntil(cv_, lock, deadline);
      if (stopping_) return;
      lock.unlock();
      if (loop_.hasSynced()) {
        for (const auto& [k, obj] : cache_.all()) notifyUpdate(obj, obj);
      }
      lock.lock();
    }
  }

  Decode decode_;
  Identity identity_;
  Clock& clock_;
  Logger logger_;
  Duration resyncPeriod_;
  std::vector<EventHandlers<T>> handlers_;
  ObjectCache<T> cache_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  bool stopping_ = false;
  std::thread resyncThread_;
  ListWatchLoop loop_;  // last: destroyed (joined) first
};

}  // namespace hpa::informer
