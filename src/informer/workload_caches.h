#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "api/workload.h"
#include "common/clock.h"
#include "common/log.h"
#include "informer/cache_summary.h"
#include "informer/informer.h"
#include "informer/list_watch.h"

namespace hpa::informer {

// Lean caches of the built-in workloads (Deployments, StatefulSets, ReplicaSets,
// ReplicationControllers), one informer per kind, started the first time something asks for
// that kind, so a cluster whose HPAs only target Deployments never lists StatefulSets.
// Thread-safe.
class WorkloadCaches {
 public:
  // Makes the list/watch source of one kind's collection.
  using SourceFactory = std::function<std::unique_ptr<ListerWatcher>(const api::BuiltinWorkload&)>;

  WorkloadCaches(SourceFactory sources, Clock& clock, Logger logger, ListWatchTiming timing = {});
  ~WorkloadCaches();

  // Starts the kind's informer unless running; false for a kind without a cache.
  bool ensure(const std::string& kind);
  bool hasSynced(const std::string& kind) const;
  // The cached workload; nullptr when absent or when the kind's cache is not synced yet.
  std::shared_ptr<const api::Workload> get(const std::string& kind, const std::string& ns,
                                           const std::string& name) const;
  // What is cached per started kind (for /metrics).
  std::map<std::string, CacheSummary> summaries() const;
  // Fails when a started kind's list/watch loop has ended without stop(), naming the kind.
  Status health() const;
  void stop();

 private:
  struct KindCache {
    std::unique_ptr<ListerWatcher> source;
    std::unique_ptr<Informer<api::Workload>> informer;
  };
  const KindCache* find(const std::string& kind) const;

  SourceFactory sources_;
  Clock& clock_;
  Logger logger_;
  ListWatchTiming timing_;
  mutable std::mutex mu_;
  bool stopped_ = false;
  std::map<std::string, KindCache> caches_;  // by kind; entries are never removed before stop()
};

}  // namespace hpa::informer
