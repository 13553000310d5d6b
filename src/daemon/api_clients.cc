#include "daemon/api_clients.h"

#include <fmt/format.h>

#include <random>

#include "api/codec.h"

namespace hpa::daemon {
namespace {

std::string scalePath(const std::string& ns, const controller::GroupVersionResource& r, const std::string& name) {
  return fmt::format("{}/namespaces/{}/{}/{}/scale", kube::groupVersionPath(r.group, r.version), ns, r.resource, name);
}

constexpr auto kEventCorrelationWindow = std::chrono::minutes(10);

}  // namespace

Result<std::vector<controller::GroupVersionResource>> ApiScaleClient::mappingsFor(const std::string& group,
                                                                                  const std::string& kind) {
  auto m = discovery_.mappingsFor(group, kind);
  if (!m.ok()) {
    // A kind registered after start-up (a new CRD) needs fresh discovery.
    discovery_.invalidate();
    m = discovery_.mappingsFor(group, kind);
    if (!m.ok()) return m.error();
  }
  std::vector<controller::GroupVersionResource> out;
  for (const auto& g : *m) out.push_back({g.group, g.version, g.resource});
  return out;
}

Result<api::Scale> ApiScaleClient::getScale(const std::string& ns, const controller::GroupVersionResource& r,
                                            const std::string& name) {
  auto body = client_.get(scalePath(ns, r, name));
  if (!body.ok()) return body.error();
  return api::decodeScale(*body);
}

Result<api::Scale> ApiScaleClient::updateScale(const std::string& ns, const controller::GroupVersionResource& r,
                                               const api::Scale& scale) {
  nlohmann::json body = api::encodeScale(scale);
  auto stored = client_.send("PUT", scalePath(ns, r, scale.metadata.name), &body);
  if (!stored.ok()) return stored.error();
  return api::decodeScale(*stored);
}

Result<api::HorizontalPodAutoscaler> ApiStatusWriter::updateStatus(const api::HorizontalPodAutoscaler& hpa) {
  nlohmann::json body = api::encodeHorizontalPodAutoscaler(hpa, apiVersion_);
  auto stored = client_.send("PUT",
                             fmt::format("/apis/{}/namespaces/{}/horizontalpodautoscalers/{}/status", apiVersion_,
                                         hpa.metadata.namespace_, hpa.metadata.name),
                             &body);
  if (!stored.ok()) return stored.error();
  auto decoded = api::decodeHorizontalPodAutoscaler(*stored);
  if (decoded.ok() && written_) {
    written_->record(api::objectKey(hpa.metadata.namespace_, hpa.metadata.name), decoded->metadata.resourceVersion);
  }
  return decoded;
}

void ApiEventRecorder::event(const api::HorizontalPodAutoscaler& hpa, const std::string& type,
                             const std::string& reason, const std::string& message) {
  const Time now = clock_.now();
  const std::string key = fmt::format("{}/{}/{}\x1f{}\x1f{}\x1f{}", hpa.metadata.namespace_, hpa.metadata.name,
                                      hpa.metadata.uid, type, reason, message);
  std::optional<Seen> previous;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Forget correlations past the window, so the map stays small.
    for (auto it = seen_.begin(); it != seen_.end();) {
      it = now - it->second.last > kEventCorrelationWindow ? seen_.erase(it) : std::next(it);
    }
    if (auto it = seen_.find(key); it != seen_.end()) previous = it->second;
  }
  const std::string eventsPath = fmt::format("/api/v1/namespaces/{}/events", hpa.metadata.namespace_);
  if (previous) {
    nlohmann::json patch{{"count", previous->count + 1}, {"lastTimestamp", formatRFC3339(now)}};
    auto r = client_.send("PATCH", eventsPath + "/" + previous->name, &patch, "application/merge-patch+json");
    if (r.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      auto& s = seen_[key];
      s.count = previous->count + 1;
      s.last = now;
      return;
    }
    logger_.v(2, "event update failed, creating a new one", "reason", reason, "err", r.error().message);
  }
  // client-go names events <object>.<unique hex suffix>.
  static thread_local std::mt19937_64 random{std::random_device{}()};
  const std::string name = fmt::format("{}.{:016x}", hpa.metadata.name, random());
  nlohmann::json body{
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata", {{"name", name}, {"namespace", hpa.metadata.namespace_}}},
      {"involvedObject",
       {{"kind", "HorizontalPodAutoscaler"},
        {"namespace", hpa.metadata.namespace_},
        {"name", hpa.metadata.name},
        {"uid", hpa.metadata.uid},
        {"apiVersion", hpa.apiVersion},
        {"resourceVersion", hpa.metadata.resourceVersion}}},
      {"reason", reason},
      {"message", message},
      {"type", type},
      {"source", {{"component", "horizontal-pod-autoscaler"}}},
      {"firstTimestamp", formatRFC3339(now)},
      {"lastTimestamp", formatRFC3339(now)},
      {"count", 1},
      {"reportingComponent", "horizontal-pod-autoscaler"}};
  auto r = client_.send("POST", eventsPath, &body);
  if (!r.ok()) {
    logger_.error("could not record event", "HPA", hpa.metadata.namespace_ + "/" + hpa.metadata.name, "reason", reason,
                  "err", r.error().message);
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  seen_[key] = Seen{name, 1, now, now};
}

}  // namespace hpa::daemon
