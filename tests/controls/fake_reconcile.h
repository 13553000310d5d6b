#pragma once

// The reconcile as the controls see it, over a plain HPA and status: the controls' tests call
// the chain at its points with this view where the reconcile stands.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "controls/control_chain.h"

namespace hpa::controls {

inline const Time kNow = Time(std::chrono::seconds(1'700'000'000));

struct SeenEvent {
  std::string type;
  std::string reason;
  bool operator==(const SeenEvent&) const = default;
};

class FakeReconcile final : public ReconcileView {
 public:
  // default/web with one cpu metric at 50 % utilization.
  FakeReconcile(ControlChain& chain, std::map<std::string, std::string> annotations,
                bool keepsState = true)
      : FakeReconcile(chain, std::in_place, webHpa(std::move(annotations)), keepsState) {}
  // An HPA of the test's own.
  FakeReconcile(ControlChain& chain, std::in_place_t, api::HorizontalPodAutoscaler hpa,
                bool keepsState = true)
      : hpa_(std::move(hpa)), keepsState_(keepsState) {
    report_ = chain.start(hpa_);
  }

  static api::HorizontalPodAutoscaler webHpa(std::map<std::string, std::string> annotations) {
    api::HorizontalPodAutoscaler hpa;
    hpa.metadata.namespace_ = "default";
    hpa.metadata.name = "web";
    hpa.metadata.annotations = std::move(annotations);
    hpa.spec.scaleTargetRef.kind = "Deployment";
    hpa.spec.scaleTargetRef.name = "web";
    api::MetricSpec cpu;
    cpu.source =
        api::ResourceMetricSource{"cpu", api::MetricTarget{api::kUtilizationTarget, {}, {}, 50}};
    hpa.spec.metrics = {cpu};
    return hpa;
  }

  const std::string& key() const override { return key_; }
  const api::HorizontalPodAutoscaler& hpa() const override { return hpa_; }
  const api::HorizontalPodAutoscalerCondition* conditionRead(
      const std::string& type) const override {
    return api::findCondition(statusRead, type);
  }
  api::HorizontalPodAutoscalerCondition* conditionNow(const std::string& type) override {
    return api::findCondition(hpa_.status, type);
  }
  Time now() const override { return at; }
  bool keepsState() const override { return keepsState_; }
  const HpaControls& controls() const override { return report_.controls; }
  ControlsReport& controlsReport() override { return report_; }
  const Logger& logger() const override { return logger_; }
  void condition(const std::string& type, const std::string& status, const std::string& reason,
                 const std::string& message) override {
    if (auto* c = conditionNow(type)) {
      *c = {type, status, std::nullopt, reason, message, std::nullopt};
    } else {
      hpa_.status.conditions.push_back({type, status, std::nullopt, reason, message, std::nullopt});
    }
  }
  void dropCondition(const std::string& type) override {
    std::erase_if(hpa_.status.conditions, [&type](const auto& c) { return c.type == type; });
  }
  Duration syncPeriod() const override { return sync; }
  Duration initialReadinessDelay() const override { return readinessDelay; }
  void normalEvent(const std::string& reason, const std::string&) override {
    events.push_back({"Normal", reason});
  }
  void warningEvent(const std::string& reason, const std::string&) override {
    events.push_back({"Warning", reason});
  }
  std::size_t metricCount() const override { return fallbacks.size(); }
  const std::optional<std::string>& metricError(std::size_t index) const override {
    return errors[index];
  }
  const std::optional<FallbackReport>& metricFallback(std::size_t index) const override {
    return fallbacks[index];
  }

  api::HorizontalPodAutoscalerStatus statusRead;
  std::vector<SeenEvent> events;
  std::vector<std::optional<std::string>> errors{std::nullopt};
  std::vector<std::optional<FallbackReport>> fallbacks{std::nullopt};
  Time at = kNow;
  Duration sync = std::chrono::seconds(15);
  Duration readinessDelay = std::chrono::seconds(30);

 private:
  std::string key_ = "default/web";
  api::HorizontalPodAutoscaler hpa_;
  ControlsReport report_;
  Logger logger_ = Logger::discard();
  bool keepsState_;
};

}  // namespace hpa::controls
