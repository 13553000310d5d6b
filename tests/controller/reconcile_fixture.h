#pragma once

// The reconcile tests' fixture: one HPA "default/web" on Deployment web, its pods and their cpu
// samples, and a controller wired to fakes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/defaults.h"
#include "controller/horizontal_controller.h"
#include "fakes/controller_fakes.h"
#include "fakes/fake_clock.h"
#include "fakes/pod_builder.h"

namespace hpa::controller::fixture {

using hpa::testing::FakeClock;
using hpa::testing::PodBuilder;
using std::chrono::minutes;
using std::chrono::seconds;

inline const Time kPodStart = Time(seconds(1'700'000'000));

inline api::MetricSpec cpuUtilization(std::int32_t target) {
  api::MetricSpec m;
  m.source =
      api::ResourceMetricSource{"cpu", api::MetricTarget{api::kUtilizationTarget, {}, {}, target}};
  return m;
}

inline api::MetricSpec externalValue(const std::string& name, const char* value) {
  api::MetricSpec m;
  m.source = api::ExternalMetricSource{
      {name, std::nullopt},
      api::MetricTarget{api::kValueTarget, *api::Quantity::parse(value), {}, {}}};
  return m;
}

// HPA "default/web" on Deployment web: 1 to 10 replicas, a cpu utilization target of 50 %.
inline api::HorizontalPodAutoscaler webHpa() {
  api::HorizontalPodAutoscaler hpa;
  hpa.metadata = {"web", "default", "uid-1", "1", 1, {}, {}, std::nullopt, std::nullopt};
  hpa.spec.scaleTargetRef = {"Deployment", "web", "apps/v1"};
  hpa.spec.minReplicas = 1;
  hpa.spec.maxReplicas = 10;
  hpa.spec.metrics = {cpuUtilization(50)};
  return hpa;
}

// The /scale of Deployment default/web.
inline api::Scale webScale(std::int32_t replicas, std::string selector = "app=web") {
  api::Scale s;
  s.metadata.name = "web";
  s.metadata.namespace_ = "default";
  s.specReplicas = replicas;
  s.statusReplicas = replicas;
  s.selector = std::move(selector);
  return s;
}

// Replaces the pods with `count` Running/Ready pods of web (app=web), with a 100m cpu request
// each, using `usageMilli` of cpu as sampled 20 s before `now`.
inline void setWebPods(hpa::testing::FakePodLister& pods, hpa::testing::FakeMetricsClient& metrics,
                       Time now, int count, std::int64_t usageMilli) {
  pods.clear();
  metricsclient::PodMetricsResult samples;
  samples.timestamp = now - seconds(20);
  for (int i = 0; i < count; ++i) {
    std::string name = "web-" + std::to_string(i);
    pods.add(PodBuilder(name)
                 .label("app", "web")
                 .startTime(kPodStart)
                 .ready("True", kPodStart + seconds(5))
                 .container("app", 100)
                 .build());
    samples.metrics[name] = replicacalc::PodMetric{usageMilli, samples.timestamp, minutes(1)};
  }
  metrics.resource.insert_or_assign("cpu", samples);
}

// One HPA "default/web" on Deployment web, its pods and their cpu samples, and a controller
// wired to fakes.
class ReconcileTest : public ::testing::Test {
 protected:
  ReconcileTest() : clock_(kPodStart + minutes(30)), hpa_(webHpa()) {}

  void setScale(std::int32_t replicas, std::string selector = "app=web") {
    scales_.scales["deployments/default/web"] = webScale(replicas, std::move(selector));
  }
  // `count` Running/Ready pods with a 100m request each, using `usageMilli` of cpu.
  void setPods(int count, std::int64_t usageMilli) {
    setWebPods(pods_, metrics_, clock_.now(), count, usageMilli);
  }
  HorizontalController& controller() {
    if (!controller_) {
      controller_ = std::make_unique<HorizontalController>(
          ControllerDependencies{hpas_, pods_, metrics_, scaleClient_ ? *scaleClient_ : scales_,
                                 status_, events_, clock_, Logger::discard(), nullptr, &owners_,
                                 routes_, forecastHistory_},
          options_);
    }
    return *controller_;
  }
  ReconcileResult reconcile() {
    hpas_.put(hpa_);
    controller().hpaAdded("default/web");
    auto r = controller().reconcileKey("default/web");
    if (!status_.writes.empty()) {
      // What the server stored is what the informer will show next.
      hpa_.status = status_.writes.back().status;
      if (status_.dropObservedGeneration) hpa_.status.observedGeneration.reset();
    }
    return r;
  }
  const api::HorizontalPodAutoscalerCondition* condition(const std::string& type) const {
    for (const auto& c : hpa_.status.conditions) {
      if (c.type == type) return &c;
    }
    return nullptr;
  }
  std::vector<std::string> eventReasons() const {
    std::vector<std::string> out;
    for (const auto& e : events_.events) out.push_back(e.reason);
    return out;
  }

  FakeClock clock_;
  api::HorizontalPodAutoscaler hpa_;
  ControllerOptions options_;
  hpa::testing::FakeHpaLister hpas_;
  hpa::testing::FakePodLister pods_;
  hpa::testing::FakeOwnerLookup owners_;
  hpa::testing::FakeMetricsClient metrics_;
  hpa::testing::FakeScaleClient scales_;
  ScaleClient* scaleClient_ = nullptr;  // set before controller() to put something before scales_
  metricsclient::MetricRoutes* routes_ = nullptr;         // set before controller()
  controls::ForecastHistory* forecastHistory_ = nullptr;  // set before controller()
  hpa::testing::FakeStatusWriter status_;
  hpa::testing::FakeEventRecorder events_;
  std::unique_ptr<HorizontalController> controller_;
};

}  // namespace hpa::controller::fixture
