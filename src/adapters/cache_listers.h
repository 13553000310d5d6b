#pragma once

#include "api/hpa.h"
#include "api/pod.h"
#include "controller/listers.h"
#include "informer/object_cache.h"
#include "informer/pod_selector_index.h"

namespace hpa::adapters {

// The controller's listers over informer caches.
class CacheHpaLister final : public controller::HpaLister {
 public:
  explicit CacheHpaLister(const informer::ObjectCache<api::HorizontalPodAutoscaler>& cache)
      : cache_(cache) {}
  Result<std::shared_ptr<const api::HorizontalPodAutoscaler>> get(
      const std::string& ns, const std::string& name) const override {
    return cache_.get(ns + "/" + name);
  }

 private:
  const informer::ObjectCache<api::HorizontalPodAutoscaler>& cache_;
};

// Pods through the selector index the pod informer's events keep, not a scan of the namespace.
class CachePodLister final : public controller::PodLister {
 public:
  CachePodLister(const informer::ObjectCache<api::Pod>& cache, informer::PodSelectorIndex& index)
      : cache_(cache), index_(index) {}
  Result<api::SharedPods> list(const std::string& ns,
                               const api::Selector& selector) const override {
    return index_.list(ns, selector, cache_);
  }

 private:
  const informer::ObjectCache<api::Pod>& cache_;
  informer::PodSelectorIndex& index_;
};

}  // namespace hpa::adapters
