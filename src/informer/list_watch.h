#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/watch.h"
#include "common/result.h"

namespace hpa::informer {

// Narrow source the reflector lists and watches from (client-go's ListerWatcher). The REST
// implementation targets one resource collection (optionally one namespace, with selectors);
// tests use an in-memory fake with resourceVersions and injectable errors.
struct ListOptions {
  std::string resourceVersion;  // "" = most recent (quorum read); "0" = any
  std::int64_t limit = 0;       // page size; 0 = no paging
  std::string continueToken;
};

struct ListResult {
  std::vector<nlohmann::json> items;
  std::string resourceVersion;  // the list's resourceVersion
  std::string continueToken;    // non-empty when more pages follow
};

struct WatchOptions {
  std::string resourceVersion;
  bool allowWatchBookmarks = true;
  std::chrono::seconds timeout{0};  // sent as timeoutSeconds; 0 = server default
};

class ListerWatcher {
 public:
  virtual ~ListerWatcher() = default;
  // Errors carry the HTTP code (410 Gone for an expired continue token or resourceVersion).
  virtual Result<ListResult> list(const ListOptions& options) = 0;
  virtual Result<std::unique_ptr<api::WatchStream>> watch(const WatchOptions& options) = 0;
};

}  // namespace hpa::informer
