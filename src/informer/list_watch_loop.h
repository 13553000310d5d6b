#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "informer/list_watch.h"

namespace hpa::informer {

// Receives what the loop learns: a complete listing (replace) or one watch event (apply).
class ListWatchSink {
 public:
  virtual ~ListWatchSink() = default;
  virtual void replace(std::vector<nlohmann::json> items) = 0;
  virtual void apply(api::WatchEventType type, const nlohmann::json& object) = 0;
};

struct ListWatchTiming {
  std::int64_t pageSize = 500;
  std::chrono::seconds minWatchTimeout{300};  // watches last a random time in [min, 2 x min)
  Duration initialBackoff = std::chrono::milliseconds(800);
  Duration maxBackoff = std::chrono::seconds(30);
  Duration backoffReset = std::chrono::minutes(2);
  // A watch that could not reach the server (refused, reset, a stream cut off) is tried again
  // within this: a watch is cheap for the server, and a cache that trails it holds reconciles
  // back (a status just written is not in it yet) long after the server is back. Answers with an
  // HTTP error, and failed lists, keep the doubling backoff.
  Duration maxUnreachableWatchBackoff = std::chrono::seconds(1);
};

// client-go's reflector: a paginated list, then a watch from the list's resourceVersion with
// bookmarks; 410 Gone (HTTP status, ERROR event, expired continue token) relists; a watch the
// server ended is resumed from the last resourceVersion; other failures back off (0.8 s doubling
// to 30 s, jittered, reset after 2 min of health), a watch that could not reach the server at
// most a second. Runs on its own thread, which ends only at stop(), or when what it calls throws:
// the exception is logged and health() reports the loop ended, so that /healthz gets the process
// restarted (a cache no longer kept current serves stale objects forever).
class ListWatchLoop {
 public:
  ListWatchLoop(ListerWatcher& source, ListWatchSink& sink, Clock& clock, Logger logger,
                ListWatchTiming timing = {});
  ~ListWatchLoop();

  void start();
  void stop();
  bool hasSynced() const { return synced_.load(); }
  std::string lastResourceVersion() const;
  // Complete listings so far (1 after the first sync; more after each relist).
  int completedLists() const { return completedLists_.load(); }
  // Fails once the loop's thread has ended without stop() being called. A loop retrying against
  // an unreachable API server is running: a restart would not help it.
  Status health() const;

 private:
  void run();
  // run(), with what makes it end early caught and kept for health().
  void runGuarded();
  // Lists everything; false when the loop should back off.
  bool listAll();
  // Watches until the stream ends or fails; returns true to re-watch, false to relist. `failed`:
  // it failed (back off first); `unreachable`: without an answer from the server.
  bool watchOnce(bool& failed, bool& unreachable);
  bool sleep(Duration d);
  Duration nextBackoff();

  ListerWatcher& source_;
  ListWatchSink& sink_;
  Clock& clock_;
  Logger logger_;
  ListWatchTiming timing_;

  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  bool stopping_ = false;
  std::string resourceVersion_;
  std::optional<std::string> endedEarly_;  // why the thread ended without stop()
  std::unique_ptr<api::WatchStream> currentWatch_;
  std::atomic<bool> synced_{false};
  std::atomic<int> completedLists_{0};
  Duration backoff_{0};
  Time lastFailure_{};
  std::mt19937 random_{std::random_device{}()};
  std::thread thread_;
};

}  // namespace hpa::informer
