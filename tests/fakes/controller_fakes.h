#pragma once

// In-memory implementations of the controller's interfaces, for unit tests.

#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "controller/event_recorder.h"
#include "controller/listers.h"
#include "controller/scale_client.h"
#include "controller/status_writer.h"
#include "controls/owner_lookup.h"
#include "metricsclient/metrics_client.h"

namespace hpa::testing {

class FakeHpaLister final : public controller::HpaLister {
 public:
  void put(const api::HorizontalPodAutoscaler& hpa) {
    hpas_[api::objectKey(hpa.metadata.namespace_, hpa.metadata.name)] =
        std::make_shared<const api::HorizontalPodAutoscaler>(hpa);
  }
  void remove(const std::string& key) { hpas_.erase(key); }
  std::optional<Error> error;

  Result<std::shared_ptr<const api::HorizontalPodAutoscaler>> get(
      const std::string& ns, const std::string& name) const override {
    if (error) return *error;
    auto it = hpas_.find(api::objectKey(ns, name));
    if (it == hpas_.end()) return std::shared_ptr<const api::HorizontalPodAutoscaler>();
    return it->second;
  }

 private:
  std::map<std::string, std::shared_ptr<const api::HorizontalPodAutoscaler>> hpas_;
};

class FakePodLister final : public controller::PodLister {
 public:
  void add(api::Pod pod) { pods_.push_back(std::make_shared<const api::Pod>(std::move(pod))); }
  void clear() { pods_.clear(); }
  std::optional<Error> error;

  Result<api::SharedPods> list(const std::string& ns,
                               const api::Selector& selector) const override {
    if (error) return *error;
    auto out = std::make_shared<std::vector<std::shared_ptr<const api::Pod>>>();
    for (const auto& p : pods_) {
      if (p->namespace_ == ns && selector.matches(p->labels)) out->push_back(p);
    }
    return api::SharedPods(std::move(out));
  }

 private:
  std::vector<std::shared_ptr<const api::Pod>> pods_;
};

// Controlling owners by "namespace/Kind/name"; `syncing` answers every lookup with an error.
class FakeOwnerLookup final : public controls::OwnerLookup {
 public:
  void own(const std::string& ns, const std::string& kind, const std::string& name,
           const std::string& ownerKind, const std::string& ownerName) {
    owners[ns + "/" + kind + "/" + name] =
        api::OwnerReference{"apps/v1", ownerKind, ownerName, "", true};
  }
  Result<std::optional<api::OwnerReference>> controllerOf(const std::string& ns,
                                                          const std::string& kind,
                                                          const std::string& name) const override {
    if (syncing) return Error::format("the {} cache has not synced yet", kind);
    auto it = owners.find(ns + "/" + kind + "/" + name);
    if (it == owners.end()) return std::optional<api::OwnerReference>();
    return std::optional<api::OwnerReference>(it->second);
  }
  std::map<std::string, api::OwnerReference> owners;
  bool syncing = false;
};

// Answers each of the four metric questions with a configured result (per metric name for the
// custom and external ones) and records the questions asked.
class FakeMetricsClient final : public metricsclient::MetricsClient {
 public:
  std::map<std::string, Result<metricsclient::PodMetricsResult>> resource;      // by resource name
  std::map<std::string, Result<metricsclient::PodMetricsResult>> pods;          // by metric name
  std::map<std::string, Result<metricsclient::ObjectMetricResult>> objects;     // by metric name
  std::map<std::string, Result<metricsclient::ExternalMetricResult>> external;  // by metric name
  std::vector<std::string> calls;
  std::vector<Duration> maxAges;  // per pod-metrics call

  Result<metricsclient::PodMetricsResult> getResourceMetric(const std::string& res,
                                                            const std::string& ns,
                                                            const api::Selector& selector,
                                                            const std::string& container,
                                                            Duration maxAge) override {
    maxAges.push_back(maxAge);
    calls.push_back("resource " + res + " " + ns + " " + selector.toString() + " " + container);
    auto it = resource.find(res);
    if (it == resource.end()) return Error::of("no metrics returned from resource metrics API");
    return it->second;
  }
  Result<metricsclient::PodMetricsResult> getRawMetric(const std::string& name,
                                                       const std::string& ns,
                                                       const api::Selector& selector,
                                                       const api::Selector& metricSelector,
                                                       Duration maxAge) override {
    maxAges.push_back(maxAge);
    calls.push_back("pods " + name + " " + ns + " " + selector.toString() + " " +
                    metricSelector.toString());
    auto it = pods.find(name);
    if (it == pods.end()) return Error::of("no metrics returned from custom metrics API");
    return it->second;
  }
  Result<metricsclient::ObjectMetricResult> getObjectMetric(
      const std::string& name, const std::string& ns,
      const api::CrossVersionObjectReference& object,
      const api::Selector& metricSelector) override {
    calls.push_back("object " + name + " " + ns + " " + object.kind + "/" + object.name + " " +
                    metricSelector.toString());
    auto it = objects.find(name);
    if (it == objects.end()) {
      return Error::of(
          "unable to fetch metrics from custom metrics API: the server could not find the metric");
    }
    return it->second;
  }
  Result<metricsclient::ExternalMetricResult> getExternalMetric(
      const std::string& name, const std::string& ns,
      const api::Selector& metricSelector) override {
    calls.push_back("external " + name + " " + ns + " " + metricSelector.toString());
    auto it = external.find(name);
    if (it == external.end()) return Error::of("no metrics returned from external metrics API");
    return it->second;
  }
};

class FakeScaleClient final : public controller::ScaleClient {
 public:
  std::map<std::string, std::vector<controller::GroupVersionResource>> mappings = {
      {"apps/Deployment", {{"apps", "v1", "deployments"}}},
      {"apps/StatefulSet", {{"apps", "v1", "statefulsets"}}},
      {"/ReplicationController", {{"", "v1", "replicationcontrollers"}}},
  };
  std::map<std::string, api::Scale> scales;  // "resource/ns/name"
  std::deque<Error> updateErrors;            // returned by the next updates, in order
  std::optional<Error> getError;
  std::vector<api::Scale> updates;  // every PUT attempted
  int gets = 0;

  static std::string scaleKey(const std::string& resource, const std::string& ns,
                              const std::string& name) {
    return resource + "/" + ns + "/" + name;
  }

  Result<std::vector<controller::GroupVersionResource>> mappingsFor(
      const std::string& group, const std::string& kind) override {
    auto it = mappings.find(group + "/" + kind);
    if (it == mappings.end())
      return Error::format("no matches for kind {:?} in group {:?}", kind, group);
    return it->second;
  }
  Result<api::Scale> getScale(const std::string& ns, const controller::GroupVersionResource& r,
                              const std::string& name) override {
    ++gets;
    if (getError) return *getError;
    auto it = scales.find(scaleKey(r.resource, ns, name));
    if (it == scales.end()) {
      return Error{fmt::format("{}{} {:?} not found", r.resource,
                               r.group.empty() ? "" : "." + r.group, name),
                   404, "NotFound"};
    }
    return it->second;
  }
  Result<api::Scale> updateScale(const std::string& ns, const controller::GroupVersionResource& r,
                                 const api::Scale& scale) override {
    updates.push_back(scale);
    if (!updateErrors.empty()) {
      Error e = updateErrors.front();
      updateErrors.pop_front();
      return e;
    }
    scales[scaleKey(r.resource, ns, scale.metadata.name)] = scale;
    return scale;
  }
};

class FakeStatusWriter final : public controller::StatusWriter {
 public:
  std::vector<api::HorizontalPodAutoscaler> writes;
  std::optional<Error> error;
  bool dropObservedGeneration = false;  // behave like a server that predates the field

  Result<api::HorizontalPodAutoscaler> updateStatus(
      const api::HorizontalPodAutoscaler& hpa) override {
    writes.push_back(hpa);
    if (error) return *error;
    api::HorizontalPodAutoscaler stored = hpa;
    if (dropObservedGeneration) stored.status.observedGeneration.reset();
    return stored;
  }
};

class FakeEventRecorder final : public controller::EventRecorder {
 public:
  struct Event {
    std::string type, reason, message;
  };
  std::vector<Event> events;
  void event(const api::HorizontalPodAutoscaler&, const std::string& type,
             const std::string& reason, const std::string& message) override {
    events.push_back({type, reason, message});
  }
};

}  // namespace hpa::testing
