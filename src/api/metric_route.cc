#include "api/metric_route.h"

#include <fmt/format.h>

namespace hpa::api {

std::string MetricRoute::serverName() const {
  if (!service) return "";
  return fmt::format("{}.{}.svc", service->name, service->namespace_);
}

std::string describeRoute(const MetricRoute& route) {
  if (route.service) {
    return fmt::format("service {}/{}:{}", route.service->namespace_, route.service->name,
                       route.service->port);
  }
  return fmt::format("API group {}", route.apiGroup);
}

}  // namespace hpa::api
