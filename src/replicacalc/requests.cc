#include "replicacalc/requests.h"

#include <fmt/format.h>

namespace hpa::replicacalc {
namespace {

bool isPodLevelResource(std::string_view name) { return name == "cpu" || name == "memory"; }

bool hasPodLevelRequests(const api::Pod& pod) {
  return pod.podRequests && (pod.podRequests->get("cpu") || pod.podRequests->get("memory"));
}

// A container's request for the resource from the chosen source: the actuated value where one
// is recorded (it differs from spec), spec otherwise.
std::optional<std::int64_t> containerRequest(const api::ContainerRequests& c,
                                             std::string_view resource, RequestsSource source) {
  if (source == RequestsSource::Actuated) {
    if (auto actuated = c.requests.actuated(resource)) return actuated;
  }
  return c.requests.get(resource);
}

// The aggregated container request the resource helper computes: containers summed, then the
// larger of that and any ordinary init container (sidecars add to both), plus overhead.
std::int64_t aggregatedContainerRequest(const api::Pod& pod, std::string_view resource,
                                        RequestsSource source) {
  std::int64_t sum = 0;
  for (const auto& c : pod.containers) sum += containerRequest(c, resource, source).value_or(0);
  std::int64_t sidecars = 0;
  std::int64_t initMax = 0;
  for (const auto& c : pod.initContainers) {
    std::int64_t v = containerRequest(c, resource, source).value_or(0);
    if (c.restartPolicyAlways) {
      sidecars += v;
      initMax = std::max(initMax, sidecars);
    } else {
      initMax = std::max(initMax, sidecars + v);
    }
  }
  return std::max(sum + sidecars, initMax);
}

// Calls f(container) for each container podRequest sums for `container` ("" = all): regular
// containers, and sidecars unless `sidecars` is false (releases before 1.29).
template <typename F>
void eachCountedContainer(const api::Pod& pod, std::string_view container, F f,
                          bool sidecars = true) {
  for (const auto& c : pod.containers) {
    if (container.empty() || c.name == container) f(c);
  }
  if (!sidecars) return;
  for (const auto& c : pod.initContainers) {
    if (c.restartPolicyAlways && (container.empty() || c.name == container)) f(c);
  }
}

}  // namespace

Result<std::int64_t> podRequest(const api::Pod& pod, std::string_view container,
                                std::string_view resource, RequestsSource source,
                                const DecisionRules& rules) {
  if (container.empty() && rules.usesPodLevelRequests() && hasPodLevelRequests(pod)) {
    std::optional<std::int64_t> value = pod.podRequests->get(resource);
    if (!value && isPodLevelResource(resource)) {
      // Resources not set at pod level fall back to the containers' aggregate.
      std::int64_t aggregated = aggregatedContainerRequest(pod, resource, source);
      if (aggregated > 0) value = aggregated;
    }
    if (!value)
      return Error::format("missing pod-level request for {} in Pod {}", resource, pod.name);
    return *value + pod.overhead.get(resource).value_or(0);
  }
  std::int64_t total = 0;
  bool found = false;
  std::optional<Error> missing;
  eachCountedContainer(
      pod, container,
      [&](const api::ContainerRequests& c) {
        found = true;
        if (missing) return;
        auto v = containerRequest(c, resource, source);
        if (!v) {
          missing = Error::format("missing request for {} in container {} of Pod {}", resource,
                                  c.name, pod.name);
          return;
        }
        total += *v;
      },
      rules.sidecarRequests);
  if (missing) return *missing;
  if (!container.empty() && !found)
    return Error::format("container {} not found in Pod {}", container, pod.name);
  return total;
}

bool resizeInProgress(const api::Pod& pod, std::string_view container, std::string_view resource) {
  bool resizing = false;
  eachCountedContainer(pod, container, [&](const api::ContainerRequests& c) {
    resizing = resizing || c.requests.actuated(resource).has_value();
  });
  return resizing;
}

}  // namespace hpa::replicacalc
