#include "telemetry/cache_metrics.h"

#include <string>

#include "api/workload.h"
#include "informer/cache_summary.h"

namespace hpa::telemetry {
namespace {

std::string resourceOfKind(const std::string& kind) {
  for (const auto& w : api::builtinWorkloads()) {
    if (kind == w.kind) return w.resource;
  }
  return kind;
}

}  // namespace

void CacheMetrics::refresh() {
  auto report = [&](const std::string& resource, const informer::CacheSummary& s) {
    observer_.informerCache(resource, s.objects, s.digest);
  };
  report("horizontalpodautoscalers",
         informer::summarize(hpas_.cache(), [](const api::HorizontalPodAutoscaler& h) {
           return h.metadata.resourceVersion;
         }));
  report("pods",
         informer::summarize(pods_.cache(), [](const api::Pod& p) { return p.resourceVersion; }));
  for (const auto& [kind, summary] : workloads_.summaries()) report(resourceOfKind(kind), summary);
}

}  // namespace hpa::telemetry
