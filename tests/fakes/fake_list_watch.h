#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "informer/list_watch.h"

namespace hpa::testing {

using nlohmann::json;

// An in-memory API collection: objects with resourceVersions, paging, watch streams, and
// scriptable failures.
class FakeListWatch final : public informer::ListerWatcher {
 public:
  class Stream final : public api::WatchStream {
   public:
    Result<std::optional<api::WatchEvent>> next() override {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return !events.empty() || closed; });
      if (events.empty()) return std::optional<api::WatchEvent>();
      auto e = std::move(events.front());
      events.pop_front();
      if (!e.ok()) return e.error();
      return std::optional<api::WatchEvent>(std::move(*e));
    }
    void stop() override { close(); }
    void push(Result<api::WatchEvent> e) {
      std::lock_guard<std::mutex> lock(mu);
      events.push_back(std::move(e));
      cv.notify_all();
    }
    void close() {
      std::lock_guard<std::mutex> lock(mu);
      closed = true;
      cv.notify_all();
    }
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Result<api::WatchEvent>> events;
    bool closed = false;
  };

  void put(const std::string& name, const std::string& value, bool bad = false) {
    json o{{"metadata", {{"name", name}, {"namespace", "ns"}}}, {"value", value}};
    if (bad) o["bad"] = true;
    putObject(std::move(o));
  }
  // Stores any object (keyed by metadata.namespace/name) with the next resourceVersion.
  void putObject(json o) {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string key =
        o["metadata"].value("namespace", "") + "/" + o["metadata"].value("name", "");
    bool existed = objects_.count(key) > 0;
    o["metadata"]["resourceVersion"] = std::to_string(++rv_);
    objects_[key] = o;
    broadcast(existed ? api::WatchEventType::Modified : api::WatchEventType::Added, o);
  }
  void remove(const std::string& name, bool tell = true) { removeObject("ns/" + name, tell); }
  void removeObject(const std::string& key, bool tell = true) {
    std::lock_guard<std::mutex> lock(mu_);
    json o = objects_.at(key);
    objects_.erase(key);
    o["metadata"]["resourceVersion"] = std::to_string(++rv_);
    if (tell) broadcast(api::WatchEventType::Deleted, o);
  }
  void bookmark() {
    std::lock_guard<std::mutex> lock(mu_);
    broadcast(api::WatchEventType::Bookmark,
              json{{"metadata", {{"resourceVersion", std::to_string(++rv_)}}}});
  }
  void goneEvent() {
    std::lock_guard<std::mutex> lock(mu_);
    broadcast(api::WatchEventType::Error,
              json{{"kind", "Status"}, {"code", 410}, {"reason", "Expired"}});
  }
  // An event as given, however malformed.
  void rawEvent(api::WatchEventType t, const json& o) {
    std::lock_guard<std::mutex> lock(mu_);
    broadcast(t, o);
  }
  void closeWatches() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : streams_) s->close();
    streams_.clear();
  }

  Result<informer::ListResult> list(const informer::ListOptions& o) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++lists;
    listLimits.push_back(o.limit);
    if (!listErrors.empty()) {
      Error e = listErrors.front();
      listErrors.pop_front();
      return e;
    }
    if (!o.continueToken.empty() && expireContinue) {
      expireContinue = false;
      return Error{"continue token expired", 410, "Expired"};
    }
    std::vector<json> all;
    for (auto& [k, v] : objects_) all.push_back(v);
    size_t start = o.continueToken.empty() ? 0 : std::stoul(o.continueToken);
    size_t end =
        o.limit > 0 ? std::min(all.size(), start + static_cast<size_t>(o.limit)) : all.size();
    informer::ListResult r;
    r.items.assign(all.begin() + static_cast<long>(start), all.begin() + static_cast<long>(end));
    r.resourceVersion = std::to_string(rv_);
    if (end < all.size()) r.continueToken = std::to_string(end);
    return r;
  }
  Result<std::unique_ptr<api::WatchStream>> watch(const informer::WatchOptions& o) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++watches;
    watchVersions.push_back(o.resourceVersion);
    if (!watchErrors.empty()) {
      Error e = watchErrors.front();
      watchErrors.pop_front();
      return e;
    }
    auto s = std::make_shared<Stream>();
    streams_.push_back(s);
    struct Handle final : api::WatchStream {
      std::shared_ptr<Stream> s;
      Result<std::optional<api::WatchEvent>> next() override { return s->next(); }
      void stop() override { s->stop(); }
      ~Handle() override { s->close(); }  // a dropped watch is a closed connection
    };
    auto h = std::make_unique<Handle>();
    h->s = s;
    return std::unique_ptr<api::WatchStream>(std::move(h));
  }
  int openWatches() {
    std::lock_guard<std::mutex> lock(mu_);
    int n = 0;
    for (auto& s : streams_) {
      std::lock_guard<std::mutex> l(s->mu);
      if (!s->closed) ++n;
    }
    return n;
  }

  std::mutex mu_;
  std::map<std::string, json> objects_;
  std::vector<std::shared_ptr<Stream>> streams_;
  std::int64_t rv_ = 100;
  int lists = 0;
  int watches = 0;
  std::vector<std::int64_t> listLimits;
  std::vector<std::string> watchVersions;
  std::deque<Error> listErrors;
  std::deque<Error> watchErrors;
  bool expireContinue = false;

 private:
  void broadcast(api::WatchEventType t, const json& o) {
    for (auto& s : streams_) s->push(api::WatchEvent{t, o});
  }
};

}  // namespace hpa::testing
