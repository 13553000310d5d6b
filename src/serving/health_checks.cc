#include "serving/health_checks.h"

#include <fmt/format.h>

#include <iterator>

namespace hpa::serving {

ServerResponse healthResponse(std::string_view endpoint, const std::vector<HealthCheck>& checks,
                              bool verbose, const Logger& logger) {
  std::string body = "[+]ping ok\n";
  std::string failures;  // for the log line: "name: reason; ..."
  for (const auto& c : checks) {
    const Status status = c.check();
    if (status.ok()) {
      fmt::format_to(std::back_inserter(body), "[+]{} ok\n", c.name);
      continue;
    }
    fmt::format_to(std::back_inserter(body), "[-]{} failed: reason withheld\n", c.name);
    if (!failures.empty()) failures += "; ";
    fmt::format_to(std::back_inserter(failures), "{}: {}", c.name, status.error().message);
  }
  if (!failures.empty()) {
    logger.warn("health check failed", "endpoint", endpoint, "failed", failures);
    fmt::format_to(std::back_inserter(body), "{} check failed\n", endpoint);
    return ServerResponse{
        500, "text/plain; charset=utf-8", std::move(body), {{"X-Content-Type-Options", "nosniff"}}};
  }
  if (!verbose) return ServerResponse{200, "text/plain; charset=utf-8", "ok", {}};
  fmt::format_to(std::back_inserter(body), "{} check passed\n", endpoint);
  return ServerResponse{200, "text/plain; charset=utf-8", std::move(body), {}};
}

}  // namespace hpa::serving
