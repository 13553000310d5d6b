#include "telemetry/other_status_writers.h"

#include <map>

#include "controller/other_status_writer.h"

namespace hpa::telemetry {

OtherStatusWriterMetrics::OtherStatusWriterMetrics(
    prometheus::Registry& registry, const informer::ObjectCache<api::HorizontalPodAutoscaler>& hpas,
    std::function<std::optional<Time>()> leadingSince, const Clock& clock)
    : writers_(prometheus::BuildGauge()
                   .Name("hpa_controller_other_status_writers")
                   .Help("HPAs whose status another field manager (another HPA controller, such as "
                         "kube-controller-manager's HPA loop) wrote in the last 10 minutes while "
                         "this instance led, "
                         "by manager. Only one HPA controller must act on an HPA.")
                   .Register(registry)),
      hpas_(hpas),
      leadingSince_(std::move(leadingSince)),
      clock_(clock) {}

void OtherStatusWriterMetrics::refresh() {
  const std::optional<Time> leadingSince = leadingSince_();
  const Time now = clock_.now();
  std::map<std::string, int> hpasByManager;
  if (leadingSince) {
    for (const auto& [key, hpa] : hpas_.all()) {
      if (controller::countsAsOtherStatusWriter(hpa->lastForeignStatusWrite, leadingSince, now)) {
        ++hpasByManager[hpa->lastForeignStatusWrite->manager];
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& manager : published_) {
    if (!hpasByManager.count(manager)) writers_.Remove(&writers_.Add({{"manager", manager}}));
  }
  published_.clear();
  for (const auto& [manager, count] : hpasByManager) {
    writers_.Add({{"manager", manager}}).Set(count);
    published_.insert(manager);
  }
}

}  // namespace hpa::telemetry
