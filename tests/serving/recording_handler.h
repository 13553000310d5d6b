#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "serving/http_server.h"

namespace hpa::serving {

// A handler that records the requests it saw and answers "hello <path>" with their count in X-Seen.
class Recorder {
 public:
  RequestHandler handler() {
    return [this](const ServerRequest& r) {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back(r);
      return ServerResponse{
          200, "text/plain", "hello " + r.path, {{"X-Seen", std::to_string(seen_.size())}}};
    };
  }
  ServerRequest last() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_.back();
  }
  std::size_t count() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_.size();
  }

 private:
  std::mutex mu_;
  std::vector<ServerRequest> seen_;
};

}  // namespace hpa::serving
