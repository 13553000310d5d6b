#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/hpa.h"
#include "api/label_selector.h"
#include "api/pod.h"
#include "common/result.h"

namespace hpa::controller {

// Read access to the HPA cache. get() returns nullptr when the HPA does not exist. Objects are
// shared with the cache and never mutated.
class HpaLister {
 public:
  virtual ~HpaLister() = default;
  virtual Result<std::shared_ptr<const api::HorizontalPodAutoscaler>> get(
      const std::string& ns, const std::string& name) const = 0;
};

// Pods of one namespace matching a selector, from the pod cache. Never a null list.
class PodLister {
 public:
  virtual ~PodLister() = default;
  virtual Result<api::SharedPods> list(const std::string& ns,
                                       const api::Selector& selector) const = 0;
};

}  // namespace hpa::controller
