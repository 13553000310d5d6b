#include "replicacalc/requests.h"

#include <fmt/format.h>

namespace hpa::replicacalc {
namespace {

bool isPodLevelResource(std::string_view name) { return name == "cpu" || name == "memory"; }

bool hasPodLevelRequests(const api::Pod& pod) {
  return pod.podRequests && (pod.podRequests->get("cpu") || pod.podRequests->get("memory"));
}

// Against limits, pod-level resources are in effect when they set a request or a limit (the API
// server defaults a pod-level request from its limit, so the second alone is a hand-made pod).
bool hasPodLevelResources(const api::Pod& pod, RequestsSource source) {
  if (hasPodLevelRequests(pod)) return true;
  return source == RequestsSource::Limits && pod.podRequests &&
         (pod.podRequests->limit("cpu") || pod.podRequests->limit("memory"));
}

// What a missing value is called in errors: upstream's words for requests.
const char* valueWord(RequestsSource source) {
  return source == RequestsSource::Limits ? "limit" : "request";
}

// A container's request for the resource from the chosen source: the actuated value where one
// is recorded (it differs from spec), spec otherwise; its limit for `Limits`.
std::optional<std::int64_t> containerRequest(const api::ContainerRequests& c,
                                             std::string_view resource, RequestsSource source) {
  if (source == RequestsSource::Limits) return c.requests.limit(resource);
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

// The pod-level value standing in for a resource the pod-level resources leave out: the
// containers' aggregate, when it is positive. A container without a limit is not bounded, so
// neither is the pod: against limits, every container (init containers too) needs one.
std::optional<std::int64_t> podLevelFallback(const api::Pod& pod, std::string_view resource,
                                             RequestsSource source) {
  if (source == RequestsSource::Limits) {
    for (const auto* list : {&pod.containers, &pod.initContainers}) {
      for (const auto& c : *list) {
        if (!c.requests.limit(resource)) return std::nullopt;
      }
    }
  }
  std::int64_t aggregated = aggregatedContainerRequest(pod, resource, source);
  if (aggregated > 0) return aggregated;
  return std::nullopt;
}

// The pod-level request (spec.resources), or limit, plus overhead.
Result<std::int64_t> podLevelRequest(const api::Pod& pod, std::string_view resource,
                                     RequestsSource source) {
  std::optional<std::int64_t> value = source == RequestsSource::Limits
                                          ? pod.podRequests->limit(resource)
                                          : pod.podRequests->get(resource);
  // Resources not set at pod level fall back to the containers' aggregate.
  if (!value && isPodLevelResource(resource)) value = podLevelFallback(pod, resource, source);
  if (!value)
    return Error::format("missing pod-level {} for {} in Pod {}", valueWord(source), resource,
                         pod.name);
  return *value + pod.overhead.get(resource).value_or(0);
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
  if (container.empty() && rules.usesPodLevelRequests() && hasPodLevelResources(pod, source))
    return podLevelRequest(pod, resource, source);
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
          missing = Error::format("missing {} for {} in container {} of Pod {}", valueWord(source),
                                  resource, c.name, pod.name);
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
