#pragma once

#include "api/hpa.h"
#include "api/pod.h"
#include "informer/informer.h"
#include "informer/workload_caches.h"
#include "telemetry/prometheus_observer.h"

namespace hpa::telemetry {

// Puts what each informer cache holds (object count and digest, informer::CacheSummary) into
// /metrics when it is read, labelled by resource, so that a soak or an operator can compare the
// caches with the server's own lists (hack/soak.sh does).
class CacheMetrics {
 public:
  CacheMetrics(PrometheusObserver& observer,
               const informer::Informer<api::HorizontalPodAutoscaler>& hpas,
               const informer::Informer<api::Pod>& pods, const informer::WorkloadCaches& workloads)
      : observer_(observer), hpas_(hpas), pods_(pods), workloads_(workloads) {}

  void refresh();

 private:
  PrometheusObserver& observer_;
  const informer::Informer<api::HorizontalPodAutoscaler>& hpas_;
  const informer::Informer<api::Pod>& pods_;
  const informer::WorkloadCaches& workloads_;
};

}  // namespace hpa::telemetry
