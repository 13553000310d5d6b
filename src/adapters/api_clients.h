#pragma once

#include <map>
#include <mutex>
#include <string>

#include "common/clock.h"
#include "common/log.h"
#include "controller/scale_client.h"
#include "controller/staleness_guard.h"
#include "controller/status_writer.h"
#include "controller/write_observer.h"
#include "kube/discovery.h"
#include "kube/rest_client.h"

namespace hpa::adapters {

// The /scale subresource of any scalable resource, mapped by discovery (RESTMapper semantics:
// the scaleTargetRef's version is ignored; a resource without /scale fails the GET).
class ApiScaleClient final : public controller::ScaleClient {
 public:
  // `writes` (optional) is told of each update's outcome.
  ApiScaleClient(kube::RestClient& client, kube::Discovery& discovery,
                 controller::WriteObserver* writes = nullptr)
      : client_(client), discovery_(discovery), writes_(writes) {}
  Result<std::vector<controller::GroupVersionResource>> mappingsFor(
      const std::string& group, const std::string& kind) override;
  Result<api::Scale> getScale(const std::string& ns,
                              const controller::GroupVersionResource& resource,
                              const std::string& name) override;
  Result<api::Scale> updateScale(const std::string& ns,
                                 const controller::GroupVersionResource& resource,
                                 const api::Scale& scale) override;

 private:
  kube::RestClient& client_;
  kube::Discovery& discovery_;
  controller::WriteObserver* writes_;
};

// Merge patch of the HPA status subresource in the version the server serves (v2, else v2beta2).
class ApiStatusWriter final : public controller::StatusWriter {
 public:
  // `writes` (optional) is told of each patch's outcome.
  ApiStatusWriter(kube::RestClient& client, std::string hpaApiVersion,
                  controller::StalenessGuard* stalenessGuard = nullptr,
                  controller::WriteObserver* writes = nullptr)
      : client_(client),
        apiVersion_(std::move(hpaApiVersion)),
        stalenessGuard_(stalenessGuard),
        writes_(writes) {}
  Result<api::HorizontalPodAutoscaler> updateStatus(
      const api::HorizontalPodAutoscaler& hpa) override;

 private:
  kube::RestClient& client_;
  std::string apiVersion_;  // "autoscaling/v2" or "autoscaling/v2beta2"
  controller::StalenessGuard* stalenessGuard_;
  controller::WriteObserver* writes_;
};

}  // namespace hpa::adapters
