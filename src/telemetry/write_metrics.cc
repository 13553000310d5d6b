#include "telemetry/write_metrics.h"

#include <prometheus/family.h>

namespace hpa::telemetry {

WriteMetrics::WriteMetrics(prometheus::Registry& registry) {
  auto& family =
      prometheus::BuildCounter()
          .Name("hpa_controller_writes_total")
          .Help(
              "Write requests sent to the API server, by what they write (scale, status, history, "
              "last-decision, event) and result (success, failure). Shadow mode writes nothing.")
          .Register(registry);
  for (std::size_t kind = 0; kind < counters_.size(); ++kind) {
    const char* write = controller::writeKindName(static_cast<controller::WriteKind>(kind));
    counters_[kind][0] = &family.Add({{"write", write}, {"result", "failure"}});
    counters_[kind][1] = &family.Add({{"write", write}, {"result", "success"}});
  }
}

void WriteMetrics::writeAttempted(controller::WriteKind kind, bool succeeded) {
  counters_[static_cast<std::size_t>(kind)][succeeded ? 1 : 0]->Increment();
}

}  // namespace hpa::telemetry
