#pragma once

#include <cstdint>
#include <string>

#include "api/meta.h"

namespace hpa::api {

// autoscaling/v1 Scale, the `/scale` subresource of any scalable workload.
struct Scale {
  ObjectMeta metadata;
  std::int32_t specReplicas = 0;
  std::int32_t statusReplicas = 0;
  std::string selector;  // status.selector, the label-selector string form
  bool operator==(const Scale&) const = default;
};

}  // namespace hpa::api
