#pragma once

#include <vector>

#include "controller/listers.h"
#include "controller/scale_client.h"
#include "controls/owner_lookup.h"
#include "explain/snapshot.h"
#include "metricsclient/api_selection.h"
#include "metricsclient/metrics_client.h"

namespace hpa::explain {

// The controller's dependencies answered from a snapshot, as the caches and APIs of the cluster
// the snapshot came from would answer them. Nothing is written anywhere: updates are recorded.

class SnapshotHpaLister final : public controller::HpaLister {
 public:
  explicit SnapshotHpaLister(const Snapshot& s) : s_(s) {}
  Result<std::shared_ptr<const api::HorizontalPodAutoscaler>> get(
      const std::string& ns, const std::string& name) const override;

 private:
  const Snapshot& s_;
};

// The controlling owners of the snapshot's workloads (a ReplicaSet's Deployment).
class SnapshotOwnerLookup final : public controls::OwnerLookup {
 public:
  explicit SnapshotOwnerLookup(const Snapshot& s) : s_(s) {}
  Result<std::optional<api::OwnerReference>> controllerOf(const std::string& ns,
                                                          const std::string& kind,
                                                          const std::string& name) const override;

 private:
  const Snapshot& s_;
};

class SnapshotPodLister final : public controller::PodLister {
 public:
  explicit SnapshotPodLister(const Snapshot& s) : s_(s) {}
  Result<api::SharedPods> list(const std::string& ns, const api::Selector& selector) const override;

 private:
  const Snapshot& s_;
};

// Answers each metrics request as the metrics APIs answer the request the live client sends
// (metricsclient/api_selection.h: same selector strings, same selection), from the snapshot's
// values; the labels of a listed Pod stand in for those an exported value lacks. Metrics absent
// from the snapshot behave as an API that returned none.
class SnapshotMetricsClient final : public metricsclient::MetricsClient {
 public:
  explicit SnapshotMetricsClient(const Snapshot& s) : s_(s) {}
  Result<metricsclient::PodMetricsResult> getResourceMetric(const std::string& resource,
                                                            const std::string& ns,
                                                            const api::Selector& selector,
                                                            const std::string& container,
                                                            Duration maxAge) override;
  Result<metricsclient::PodMetricsResult> getRawMetric(const std::string& metricName,
                                                       const std::string& ns,
                                                       const api::Selector& selector,
                                                       const api::Selector& metricSelector,
                                                       Duration maxAge) override;
  Result<metricsclient::ObjectMetricResult> getObjectMetric(
      const std::string& metricName, const std::string& ns,
      const api::CrossVersionObjectReference& object, const api::Selector& metricSelector) override;
  Result<metricsclient::ExternalMetricResult> getExternalMetric(
      const std::string& metricName, const std::string& ns,
      const api::Selector& metricSelector) override;

 private:
  const api::Pod* podNamed(const std::string& ns, const std::string& name) const;
  metricsclient::PodLabelsLookup podLabels(const std::string& ns) const;
  std::vector<api::MetricValue> customValues() const;
  const Snapshot& s_;
};

// Maps the workload kinds every cluster has (Deployment, StatefulSet, ReplicaSet,
// ReplicationController); other kinds map when the snapshot carries a Scale object for them.
// A target missing from the snapshot fails as a GET of a missing object would.
class SnapshotScaleClient final : public controller::ScaleClient {
 public:
  explicit SnapshotScaleClient(const Snapshot& s) : s_(s) {}
  Result<std::vector<controller::GroupVersionResource>> mappingsFor(
      const std::string& group, const std::string& kind) override;
  Result<api::Scale> getScale(const std::string& ns,
                              const controller::GroupVersionResource& resource,
                              const std::string& name) override;
  // A snapshot is read-only: explain records updates in front of this client.
  Result<api::Scale> updateScale(const std::string& ns,
                                 const controller::GroupVersionResource& resource,
                                 const api::Scale& scale) override;

 private:
  const Snapshot& s_;
};

}  // namespace hpa::explain
