#include "informer/workload_caches.h"

namespace hpa::informer {

WorkloadCaches::WorkloadCaches(SourceFactory sources, Clock& clock, Logger logger,
                               ListWatchTiming timing)
    : sources_(std::move(sources)), clock_(clock), logger_(std::move(logger)), timing_(timing) {}

WorkloadCaches::~WorkloadCaches() { stop(); }

bool WorkloadCaches::ensure(const std::string& kind) {
  std::lock_guard<std::mutex> lock(mu_);
  if (caches_.count(kind)) return true;
  if (stopped_) return false;
  const api::BuiltinWorkload* builtin = nullptr;
  for (const auto& w : api::builtinWorkloads()) {
    if (kind == w.kind) builtin = &w;
  }
  if (!builtin) return false;
  KindCache& cache = caches_[kind];
  cache.source = sources_(*builtin);
  cache.informer = std::make_unique<Informer<api::Workload>>(
      *cache.source, [kind](const nlohmann::json& j) { return api::decodeWorkload(j, kind); },
      [](const api::Workload& w) { return std::make_pair(w.namespace_, w.name); }, clock_,
      logger_.child(kind), Duration(0), timing_);
  cache.informer->start();
  logger_.info("started a workload cache", "kind", kind);
  return true;
}

const WorkloadCaches::KindCache* WorkloadCaches::find(const std::string& kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = caches_.find(kind);
  return it == caches_.end() ? nullptr : &it->second;
}

bool WorkloadCaches::hasSynced(const std::string& kind) const {
  const KindCache* cache = find(kind);
  return cache && cache->informer->hasSynced();
}

std::shared_ptr<const api::Workload> WorkloadCaches::get(const std::string& kind,
                                                         const std::string& ns,
                                                         const std::string& name) const {
  const KindCache* cache = find(kind);
  if (!cache || !cache->informer->hasSynced()) return nullptr;
  return cache->informer->cache().get(api::objectKey(ns, name));
}

std::map<std::string, CacheSummary> WorkloadCaches::summaries() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, CacheSummary> out;
  for (const auto& [kind, cache] : caches_) {
    out[kind] = summarize(cache.informer->cache(),
                          [](const api::Workload& w) { return w.resourceVersion; });
  }
  return out;
}

Status WorkloadCaches::health() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [kind, cache] : caches_) {
    if (auto health = cache.informer->health(); !health.ok()) return health.error().wrap(kind);
  }
  return Status();
}

void WorkloadCaches::stop() {
  // Entries stay until destruction: readers hold pointers to them outside the lock.
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  for (auto& [kind, cache] : caches_) cache.informer->stop();
}

}  // namespace hpa::informer
