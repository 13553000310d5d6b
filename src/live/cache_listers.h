#pragma once

#include "api/hpa.h"
#include "api/pod.h"
#include "controller/listers.h"
#include "informer/informer.h"

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

class CachePodLister final : public controller::PodLister {
 public:
  explicit CachePodLister(const informer::Informer<api::Pod>& informer) : informer_(informer) {}
  Result<std::vector<std::shared_ptr<const api::Pod>>> list(const std::string& ns,
                                                            const api::Selector& selector) const override {
    std::vector<std::shared_ptr<const api::Pod>> out;
    for (auto& pod : informer_.cache().list(ns)) {
      if (selector.matches(pod->labels)) out.push_back(std::move(pod));
    }
    return out;
  }

 private:
  const informer::Informer<api::Pod>& informer_;
};

}  // namespace hpa::live
