#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/result.h"

namespace hpa::api {

// One event of a Kubernetes watch stream ({"type": ..., "object": ...} on the wire).
enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

struct WatchEvent {
  WatchEventType type;
  nlohmann::json object;  // the object; for Error events a metav1.Status
};

// An open watch. next() blocks until the next event; it returns nullopt when the stream ended
// normally (server-side timeout, connection closed by the server, or stop()), and an Error for
// transport failures or undecodable events. stop() may be called from any thread and makes a
// blocked next() return promptly.
class WatchStream {
 public:
  virtual ~WatchStream() = default;
  virtual Result<std::optional<WatchEvent>> next() = 0;
  virtual void stop() = 0;
};

}  // namespace hpa::api
