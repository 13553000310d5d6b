#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/registry.h>

#include <string>
#include <vector>

#include "shadow/shadow_observer.h"

namespace hpa::telemetry {

// Shadow mode's agreement with the other controller, per HPA:
//   hpa_controller_shadow_comparisons_total{namespace,name,result="agree"|"diverge",cause}
//   hpa_controller_shadow_divergences_total{namespace,name,kind}
// (cause: agree, inputs, history, warmup or rules; kind: desiredReplicas, AbleToScale,
// ScalingActive or ScalingLimited). An HPA's five comparison series exist at 0 from when the
// informer adds it (so that increase() sees its first divergence), and all its series go when the
// HPA does.
class ShadowMetrics final : public shadow::ShadowObserver {
 public:
  explicit ShadowMetrics(prometheus::Registry& registry);

  void hpaKnown(const std::string& ns, const std::string& name) override;
  void compared(const std::string& ns, const std::string& name, shadow::Cause cause,
                const std::vector<shadow::Divergence>& divergences) override;
  void hpaForgotten(const std::string& ns, const std::string& name) override;

 private:
  prometheus::Family<prometheus::Counter>& comparisons_;
  prometheus::Family<prometheus::Counter>& divergences_;
};

}  // namespace hpa::telemetry
