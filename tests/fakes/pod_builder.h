#pragma once

#include <chrono>
#include <string>

#include "api/pod.h"
#include "common/time.h"

namespace hpa::testing {

// Builds the lean api::Pod the calculator and listers work on, Running and Ready by default.
class PodBuilder {
 public:
  explicit PodBuilder(std::string name, std::string ns = "default") {
    pod_.name = std::move(name);
    pod_.namespace_ = std::move(ns);
    pod_.phase = api::kPodRunning;
    pod_.startTime = Time(std::chrono::seconds(1'700'000'000));
    pod_.ready = api::PodReadyCondition{"True", pod_.startTime};
  }
  PodBuilder& label(std::string k, std::string v) {
    pod_.labels.set(std::move(k), std::move(v));
    return *this;
  }
  PodBuilder& phase(const std::string& p) {
    pod_.phase = p;
    return *this;
  }
  PodBuilder& startTime(Time t) {
    pod_.startTime = t;
    return *this;
  }
  PodBuilder& noStartTime() {
    pod_.startTime.reset();
    return *this;
  }
  PodBuilder& ready(const std::string& status, Time lastTransition) {
    pod_.ready = api::PodReadyCondition{status, lastTransition};
    return *this;
  }
  PodBuilder& noReadyCondition() {
    pod_.ready.reset();
    return *this;
  }
  PodBuilder& deleting(Time at) {
    pod_.deletionTimestamp = at;
    return *this;
  }
  // A container with a request of `milli` for `resource` (cpu by default).
  PodBuilder& container(std::string name, std::int64_t milli, std::string resource = "cpu") {
    pod_.containers.push_back({std::move(name), {{std::move(resource), milli}}, false});
    return *this;
  }
  PodBuilder& containerWithoutRequests(std::string name) {
    pod_.containers.push_back({std::move(name), {}, false});
    return *this;
  }
  PodBuilder& initContainer(std::string name, std::int64_t milli, bool sidecar,
                            std::string resource = "cpu") {
    pod_.initContainers.push_back({std::move(name), {{std::move(resource), milli}}, sidecar});
    return *this;
  }
  PodBuilder& podRequest(const std::string& resource, std::int64_t milli) {
    if (!pod_.podRequests) pod_.podRequests.emplace();
    pod_.podRequests->set(resource, milli);
    return *this;
  }
  // A pod-level limit (spec.resources.limits).
  PodBuilder& podLimit(const std::string& resource, std::int64_t milli) {
    if (!pod_.podRequests) pod_.podRequests.emplace();
    pod_.podRequests->setLimit(resource, milli);
    return *this;
  }
  PodBuilder& overhead(const std::string& resource, std::int64_t milli) {
    pod_.overhead.set(resource, milli);
    return *this;
  }
  // The kubelet reports `milli` of `resource` actuated for the (init) container `name`: an
  // in-place resize that has not caught up with spec when it differs from the spec request.
  // The pod's controlling owner (metadata.ownerReferences[controller=true]).
  PodBuilder& ownedBy(std::string kind, std::string name) {
    pod_.controller = api::PodOwner{std::move(kind), std::move(name)};
    return *this;
  }
  PodBuilder& actuated(const std::string& name, std::int64_t milli,
                       const std::string& resource = "cpu") {
    for (auto* list : {&pod_.containers, &pod_.initContainers}) {
      for (auto& c : *list) {
        if (c.name == name) c.requests.setActuated(resource, milli);
      }
    }
    return *this;
  }
  // A limit of `milli` of `resource` for the (init) container `name`.
  PodBuilder& limit(const std::string& name, std::int64_t milli,
                    const std::string& resource = "cpu") {
    for (auto* list : {&pod_.containers, &pod_.initContainers}) {
      for (auto& c : *list) {
        if (c.name == name) c.requests.setLimit(resource, milli);
      }
    }
    return *this;
  }
  api::Pod build() const { return pod_; }

 private:
  api::Pod pod_;
};

}  // namespace hpa::testing
