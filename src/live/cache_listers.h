#pragma once

#include "api/hpa.h"
#include "api/pod.h"
#include "controller/listers.h"
#include "informer/informer.h"
#include "informer/pod_selector_index.h"

namespace hpa::live {

// The controller's listers over informer caches.
class CacheHpaLister final : public controller::HpaLister {
 public:
  explicit CacheHpaLister(const informer::Informer<api::HorizontalPodAutoscaler>& informer) : informer_(informer) {}
  Result<std::shared_ptr<const api::HorizontalPodAutoscaler>> get(const std::string& ns,
                                                                  const std::string& name) const override {
    return informer_.cache().get(ns + "/" + name);
  }

 private:
  const informer::Informer<api::HorizontalPodAutoscaler>& informer_;
};

// Pods through the selector index the pod informer's events keep, not a scan of the namespace.
class CachePodLister final : public controller::PodLister {
 public:
  CachePodLister(const informer::Informer<api::Pod>& informer, informer::PodSelectorIndex& index)
      : informer_(informer), index_(index) {}
  Result<std::vector<std::shared_ptr<const api::Pod>>> list(const std::string& ns,
                                                            const api::Selector& selector) const override {
    return index_.list(ns, selector, informer_.cache());
  }

 private:
  const informer::Informer<api::Pod>& informer_;
  informer::PodSelectorIndex& index_;
};

}  // namespace hpa::live
