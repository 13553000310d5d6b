#include "adapters/api_clients.h"

#include <fmt/format.h>

#include "api/codec.h"

namespace hpa::adapters {
namespace {

std::string scalePath(const std::string& ns, const controller::GroupVersionResource& r,
                      const std::string& name) {
  return fmt::format("{}/namespaces/{}/{}/{}/scale", kube::groupVersionPath(r.group, r.version), ns,
                     r.resource, name);
}

}  // namespace

Result<std::vector<controller::GroupVersionResource>> ApiScaleClient::mappingsFor(
    const std::string& group, const std::string& kind) {
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

Result<api::Scale> ApiScaleClient::getScale(const std::string& ns,
                                            const controller::GroupVersionResource& r,
                                            const std::string& name) {
  auto body = client_.get(scalePath(ns, r, name));
  if (!body.ok()) return body.error();
  return api::decodeScale(*body);
}

Result<api::Scale> ApiScaleClient::updateScale(const std::string& ns,
                                               const controller::GroupVersionResource& r,
                                               const api::Scale& scale) {
  nlohmann::json body = api::encodeScale(scale);
  auto stored = client_.send("PUT", scalePath(ns, r, scale.metadata.name), &body);
  controller::reportWrite(writes_, controller::WriteKind::Scale, stored.ok());
  if (!stored.ok()) return stored.error();
  return api::decodeScale(*stored);
}

Result<api::HorizontalPodAutoscaler> ApiStatusWriter::updateStatus(
    const api::HorizontalPodAutoscaler& hpa) {
  // A merge patch of the status alone, not upstream's PUT of the whole object: an apiserver
  // applies the metadata of a status PUT too, and the cached HPA keeps only the metadata the
  // controller reads, so a PUT would drop ownerReferences, finalizers, labels and annotations.
  // The resourceVersion in the patch keeps upstream's optimistic concurrency (409 when stale).
  nlohmann::json body = api::statusMergePatch(hpa);
  auto stored =
      client_.send("PATCH",
                   fmt::format("/apis/{}/namespaces/{}/horizontalpodautoscalers/{}/status",
                               apiVersion_, hpa.metadata.namespace_, hpa.metadata.name),
                   &body, "application/merge-patch+json");
  controller::reportWrite(writes_, controller::WriteKind::Status, stored.ok());
  if (!stored.ok()) return stored.error();
  auto decoded = api::decodeHorizontalPodAutoscaler(*stored);
  if (decoded.ok() && stalenessGuard_) {
    stalenessGuard_->record(api::objectKey(hpa.metadata.namespace_, hpa.metadata.name),
                            decoded->metadata.resourceVersion);
  }
  return decoded;
}

}  // namespace hpa::adapters
