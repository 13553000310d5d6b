#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "controller/event_recorder.h"
#include "controller/scale_client.h"
#include "controller/status_writer.h"

namespace hpa::adapters {

// The controller's write side when nothing may be written: `explain` (one decision, shown) and
// shadow mode (every decision, compared with another controller's). Reads go through; writes
// are recorded as if they succeeded and never sent. Thread-safe.

class DryRunStatusWriter final : public controller::StatusWriter {
 public:
  Result<api::HorizontalPodAutoscaler> updateStatus(
      const api::HorizontalPodAutoscaler& hpa) override {
    std::lock_guard<std::mutex> lock(mu_);
    written_[hpa.metadata.namespace_ + "/" + hpa.metadata.name] = hpa;
    return hpa;
  }
  // The HPA `ns/name` with the last status the controller would have written, if any.
  std::optional<api::HorizontalPodAutoscaler> written(const std::string& ns,
                                                      const std::string& name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = written_.find(ns + "/" + name);
    return it == written_.end() ? std::nullopt
                                : std::optional<api::HorizontalPodAutoscaler>(it->second);
  }
  void forget(const std::string& ns, const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    written_.erase(ns + "/" + name);
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, api::HorizontalPodAutoscaler> written_;
};

// Events are in the reconcile report already; nothing is sent.
class DiscardingEventRecorder final : public controller::EventRecorder {
 public:
  void event(const api::HorizontalPodAutoscaler&, const std::string&, const std::string&,
             const std::string&) override {}
};

// Reads the Scale through `reads`; an update is recorded as if it succeeded and never sent.
class DryRunScaleClient final : public controller::ScaleClient {
 public:
  explicit DryRunScaleClient(controller::ScaleClient& reads) : reads_(reads) {}
  Result<std::vector<controller::GroupVersionResource>> mappingsFor(
      const std::string& group, const std::string& kind) override {
    return reads_.mappingsFor(group, kind);
  }
  Result<api::Scale> getScale(const std::string& ns,
                              const controller::GroupVersionResource& resource,
                              const std::string& name) override {
    return reads_.getScale(ns, resource, name);
  }
  Result<api::Scale> updateScale(const std::string& ns, const controller::GroupVersionResource&,
                                 const api::Scale& scale) override {
    std::lock_guard<std::mutex> lock(mu_);
    updated_[ns + "/" + scale.metadata.name] = scale;
    return scale;
  }
  // The Scale the controller would have PUT last for the target `ns/name`, if any.
  std::optional<api::Scale> updated(const std::string& ns, const std::string& name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = updated_.find(ns + "/" + name);
    return it == updated_.end() ? std::nullopt : std::optional<api::Scale>(it->second);
  }

 private:
  controller::ScaleClient& reads_;
  mutable std::mutex mu_;
  std::map<std::string, api::Scale> updated_;
};

}  // namespace hpa::adapters
