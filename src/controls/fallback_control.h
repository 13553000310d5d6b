#pragma once

// The fallback control's part of a reconcile (rules in fallback.h): it counts each failed metric's
// run of failures and, once the fallback is due, has the metric propose the fallback's size.
// ScalingActive says, while failed metrics propose their fallback, which ones; a Warning event
// marks the start and a Normal one the end. Transitions are read from the condition as stored,
// so a restart or a failover does not announce them again.

#include "controls/control.h"
#include "controls/metric_failure_store.h"

namespace hpa::controls {

class FallbackControl final : public Control {
 public:
  void metricFailed(ReconcileView& reconcile, FailedMetric& metric) override;
  void metricSucceeded(ReconcileView& reconcile, std::size_t index) override;
  void afterMetrics(ReconcileView& reconcile, bool decided) override;
  void forget(const std::string& key) override { failures_.erase(key); }

 private:
  MetricFailureStore failures_;  // for HPAs with a fallback
};

}  // namespace hpa::controls
