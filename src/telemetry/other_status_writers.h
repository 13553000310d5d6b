#pragma once

#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "api/hpa.h"
#include "common/clock.h"
#include "informer/object_cache.h"

namespace hpa::telemetry {

// hpa_controller_other_status_writers{manager}: the number of HPAs whose status `manager`, a
// field manager other than hpa-controller, wrote during this instance's leadership term and at
// most 10 minutes ago (controller::countsAsOtherStatusWriter), as the HPA cache shows it;
// computed when /metrics is read. A manager with no such HPA has no series, so no series at all
// means no other writer; a standby has none, and shadow mode does not register the metric.
class OtherStatusWriterMetrics {
 public:
  // `leadingSince`: when this instance's leadership term began; nullopt while it does not lead.
  OtherStatusWriterMetrics(prometheus::Registry& registry,
                           const informer::ObjectCache<api::HorizontalPodAutoscaler>& hpas,
                           std::function<std::optional<Time>()> leadingSince, const Clock& clock);

  void refresh();

 private:
  prometheus::Family<prometheus::Gauge>& writers_;
  const informer::ObjectCache<api::HorizontalPodAutoscaler>& hpas_;
  std::function<std::optional<Time>()> leadingSince_;
  const Clock& clock_;
  std::mutex mu_;                    // /metrics may be read by two clients at once
  std::set<std::string> published_;  // guarded by mu_: the managers with a series
};

}  // namespace hpa::telemetry
