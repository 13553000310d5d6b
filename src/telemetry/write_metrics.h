#pragma once

#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include <array>

#include "controller/write_observer.h"

namespace hpa::telemetry {

// hpa_controller_writes_total{write, result}: the outcome of every write request the live writers
// send, by what it writes (scale, status, history, last-decision, event) and result (success,
// failure). All ten series exist from the start at 0, so that Prometheus' increase() sees the
// first failure. The counters are resolved once: a write costs one atomic add, no label lookup.
class WriteMetrics final : public controller::WriteObserver {
 public:
  explicit WriteMetrics(prometheus::Registry& registry);

  void writeAttempted(controller::WriteKind kind, bool succeeded) override;

 private:
  // [kind][succeeded]
  std::array<std::array<prometheus::Counter*, 2>, controller::kWriteKindCount> counters_{};
};

}  // namespace hpa::telemetry
