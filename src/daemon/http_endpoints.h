#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/result.h"

namespace hpa::daemon {

// What the endpoints report; each callback must be thread-safe.
struct EndpointHandlers {
  std::function<bool()> healthy;                    // /healthz
  std::function<std::pair<bool, std::string>()> ready;  // /readyz: ready?, and a one-line detail
  std::function<std::string()> metrics;             // /metrics, Prometheus text format
};

// /healthz, /readyz and /metrics over plain HTTP on bindAddress:port (a cpprest listener).
class HttpEndpoints {
 public:
  virtual ~HttpEndpoints() = default;
  virtual int port() const = 0;
};

Result<std::unique_ptr<HttpEndpoints>> startHttpEndpoints(const std::string& bindAddress, int port,
                                                          EndpointHandlers handlers);

}  // namespace hpa::daemon
