#pragma once

#include <map>
#include <mutex>
#include <string>

#include "common/clock.h"
#include "common/log.h"
#include "controller/event_recorder.h"
#include "controller/scale_client.h"
#include "controller/status_writer.h"
#include "daemon/written_versions.h"
#include "kube/discovery.h"
#include "kube/rest_client.h"

namespace hpa::daemon {

// The /scale subresource of any scalable resource, mapped by discovery (RESTMapper semantics:
// the scaleTargetRef's version is ignored; a resource without /scale fails the GET).
class ApiScaleClient final : public controller::ScaleClient {
 public:
  ApiScaleClient(kube::RestClient& client, kube::Discovery& discovery) : client_(client), discovery_(discovery) {}
  Result<std::vector<controller::GroupVersionResource>> mappingsFor(const std::string& group,
                                                                    const std::string& kind) override;
  Result<api::Scale> getScale(const std::string& ns, const controller::GroupVersionResource& resource,
                              const std::string& name) override;
  Result<api::Scale> updateScale(const std::string& ns, const controller::GroupVersionResource& resource,
                                 const api::Scale& scale) override;

 private:
  kube::RestClient& client_;
  kube::Discovery& discovery_;
};

// PUT of the HPA status subresource in the version the server serves (v2, else v2beta2).
class ApiStatusWriter final : public controller::StatusWriter {
 public:
  ApiStatusWriter(kube::RestClient& client, std::string hpaApiVersion, WrittenVersions* written = nullptr)
      : client_(client), apiVersion_(std::move(hpaApiVersion)), written_(written) {}
  Result<api::HorizontalPodAutoscaler> updateStatus(const api::HorizontalPodAutoscaler& hpa) override;

 private:
  kube::RestClient& client_;
  std::string apiVersion_;  // "autoscaling/v2" or "autoscaling/v2beta2"
  WrittenVersions* written_;
};

// core/v1 Events with source component horizontal-pod-autoscaler. Repeats of the same event
// (object, type, reason, message) within 10 minutes update the existing Event's count and
// lastTimestamp, as client-go's event correlator does, instead of creating new ones.
class ApiEventRecorder final : public controller::EventRecorder {
 public:
  ApiEventRecorder(kube::RestClient& client, Clock& clock, Logger logger)
      : client_(client), clock_(clock), logger_(std::move(logger)) {}
  void event(const api::HorizontalPodAutoscaler& hpa, const std::string& type, const std::string& reason,
             const std::string& message) override;

 private:
  struct Seen {
    std::string name;  // the Event object's name
    int count = 0;
    Time first;
    Time last;
  };
  kube::RestClient& client_;
  Clock& clock_;
  Logger logger_;
  std::mutex mu_;
  std::map<std::string, Seen> seen_;
};

}  // namespace hpa::daemon
