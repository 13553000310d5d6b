#pragma once

// The shadow tests' fixture: the reconcile fixture's HPA "default/web", a comparer beside its
// controller, and the statuses another controller would write.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "controller/reconcile_fixture.h"
#include "shadow/comparer.h"

namespace hpa::shadow::fixture {

class RecordingObserver final : public ShadowObserver {
 public:
  // From the informer's thread.
  void hpaKnown(const std::string& ns, const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    known_.push_back(ns + "/" + name);
  }
  void compared(const std::string&, const std::string&, Cause cause,
                const std::vector<Divergence>&) override {
    causes.push_back(cause);
  }
  void hpaForgotten(const std::string& ns, const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    forgotten_.push_back(ns + "/" + name);
  }
  std::vector<std::string> known() const {
    std::lock_guard<std::mutex> lock(mu_);
    return known_;
  }
  std::vector<std::string> forgotten() const {
    std::lock_guard<std::mutex> lock(mu_);
    return forgotten_;
  }
  std::vector<Cause> causes;

 private:
  mutable std::mutex mu_;
  std::vector<std::string> known_;
  std::vector<std::string> forgotten_;
};

class ShadowComparerTest : public controller::fixture::ReconcileTest {
 protected:
  ShadowComparer& comparer() {
    if (!comparer_) {
      controller().hpaAdded("default/web");  // the informer's add, as for a reconcile
      comparer_ = std::make_unique<ShadowComparer>(controller(), observer_, clock_,
                                                   Logger::discard(), [] { return true; });
    }
    return *comparer_;
  }
  // The HPA after another controller read `current` replicas and wrote `desired` with the
  // conditions it chose, reporting `utilization` % of cpu when given.
  api::HorizontalPodAutoscaler written(
      std::int32_t current, std::int32_t desired, const std::string& ableToScale,
      const std::string& scalingLimited,
      std::optional<std::int32_t> utilization = std::nullopt) const {
    api::HorizontalPodAutoscaler after = hpa_;
    after.status.currentReplicas = current;
    after.status.desiredReplicas = desired;
    after.status.conditions = {
        {"AbleToScale", "True", std::nullopt, ableToScale, "", std::nullopt},
        {"ScalingActive", "True", std::nullopt, "ValidMetricFound", "", std::nullopt},
        {"ScalingLimited", scalingLimited == "DesiredWithinRange" ? "False" : "True", std::nullopt,
         scalingLimited, "", std::nullopt}};
    if (utilization) {
      api::MetricStatus cpu;
      cpu.type = api::kResourceMetric;
      cpu.resource = api::ResourceMetricStatus{
          "cpu", api::MetricValueStatus{std::nullopt, std::nullopt, utilization}};
      after.status.currentMetrics = {cpu};
    }
    return after;
  }
  ComparisonResult compareNow(const api::HorizontalPodAutoscaler& after) {
    return comparer().compare(hpa_, after, clock_.now());
  }

  RecordingObserver observer_;
  std::unique_ptr<ShadowComparer> comparer_;
};

}  // namespace hpa::shadow::fixture
