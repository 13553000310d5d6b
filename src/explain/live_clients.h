#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/hpa.h"
#include "controller/listers.h"
#include "controls/owner_lookup.h"
#include "kube/rest_client.h"

namespace hpa::explain {

// The read side of a live `explain` that the daemon serves from its informer caches: the HPAs
// read once at the start, and pods LISTed by namespace and selector when the reconcile asks.

class FixedHpaLister final : public controller::HpaLister {
 public:
  explicit FixedHpaLister(std::vector<api::HorizontalPodAutoscaler> hpas);
  Result<std::shared_ptr<const api::HorizontalPodAutoscaler>> get(
      const std::string& ns, const std::string& name) const override;
  const std::vector<std::shared_ptr<const api::HorizontalPodAutoscaler>>& all() const {
    return hpas_;
  }

 private:
  std::vector<std::shared_ptr<const api::HorizontalPodAutoscaler>> hpas_;
};

// GET /api/v1/namespaces/{ns}/pods?labelSelector=... in pages; each namespace and selector is
// read once per run (a reconcile lists the same pods for each metric).
class ApiPodLister final : public controller::PodLister {
 public:
  explicit ApiPodLister(kube::RestClient& client) : client_(client) {}
  Result<api::SharedPods> list(const std::string& ns, const api::Selector& selector) const override;

 private:
  kube::RestClient& client_;
  mutable std::mutex mu_;
  mutable std::map<std::string, api::SharedPods> listed_;  // by ns and selector
};

// The controlling owners of built-in workloads by GET (a ReplicaSet's Deployment); the read is
// recorded like every other, so --save keeps the ReplicaSets an owner chain went through.
class ApiOwnerLookup final : public controls::OwnerLookup {
 public:
  explicit ApiOwnerLookup(kube::RestClient& client) : client_(client) {}
  Result<std::optional<api::OwnerReference>> controllerOf(const std::string& ns,
                                                          const std::string& kind,
                                                          const std::string& name) const override;

 private:
  kube::RestClient& client_;
};

// HorizontalPodAutoscalers of one namespace, or of every namespace when `ns` is empty, from the
// HPA API `apiVersion` ("autoscaling/v2" or "autoscaling/v2beta2"), in pages.
Result<std::vector<api::HorizontalPodAutoscaler>> listHpas(kube::RestClient& client,
                                                           const std::string& apiVersion,
                                                           const std::string& ns);

}  // namespace hpa::explain
