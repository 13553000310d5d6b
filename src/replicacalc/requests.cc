#include "replicacalc/requests.h"

#include <fmt/format.h>

namespace hpa::replicacalc {
namespace {

bool isPodLevelResource(std::string_view name) { return name == "cpu" || name == "memory"; }

bool hasPodLevelRequests(const api::Pod& pod) {
  if (!pod.podRequests) return false;
  for (const auto& r : *pod.podRequests) {
    if (isPodLevelResource(r.name)) return true;
  }
  return false;
}

// The aggregated container request the resource helper computes: containers summed, then the
// larger of that and any ordinary init container (sidecars add to both), plus overhead.
std::int64_t aggregatedContainerRequest(const api::Pod& pod, std::string_view resource) {
  std::int64_t sum = 0;
  for (const auto& c : pod.containers) sum += api::findResource(c.requests, resource).value_or(0);
  std::int64_t sidecars = 0;
  std::int64_t initMax = 0;
  for (const auto& c : pod.initContainers) {
    std::int64_t v = api::findResource(c.requests, resource).value_or(0);
    if (c.restartPolicyAlways) {
      sidecars += v;
      initMax = std::max(initMax, sidecars);
    } else {
      initMax = std::max(initMax, sidecars + v);
    }
  }
  return std::max(sum + sidecars, initMax);
}

}  // namespace

Result<std::int64_t> podRequest(const api::Pod& pod, std::string_view container, std::string_view resource) {
  if (container.empty() && hasPodLevelRequests(pod)) {
    std::optional<std::int64_t> value = api::findResource(*pod.podRequests, resource);
    if (!value && isPodLevelResource(resource)) {
      // Resources not set at pod level fall back to the containers' aggregate.
      std::int64_t aggregated = aggregatedContainerRequest(pod, resource);
      if (aggregated > 0) value = aggregated;
    }
    if (!value) return Error::format("missing pod-level request for {} in Pod {}", resource, pod.name);
    return *value + api::findResource(pod.overhead, resource).value_or(0);
  }
  std::int64_t total = 0;
  bool found = false;
  auto visit = [&](const api::ContainerRequests& c) -> std::optional<Error> {
    if (!container.empty() && c.name != container) return std::nullopt;
    found = true;
    auto v = api::findResource(c.requests, resource);
    if (!v) return Error::format("missing request for {} in container {} of Pod {}", resource, c.name, pod.name);
    total += *v;
    return std::nullopt;
  };
  for (const auto& c : pod.containers) {
    if (auto err = visit(c)) return *err;
  }
  for (const auto& c : pod.initContainers) {
    if (!c.restartPolicyAlways) continue;
    if (auto err = visit(c)) return *err;
  }
  if (!container.empty() && !found) return Error::format("container {} not found in Pod {}", container, pod.name);
  return total;
}

}  // namespace hpa::replicacalc
