#pragma once

#include "api/hpa.h"
#include "common/result.h"

namespace hpa::controller {

// Writes an HPA's status subresource (optimistic concurrency on metadata.resourceVersion; a
// conflict is an error the next sync resolves, as upstream). Returns the object as stored.
class StatusWriter {
 public:
  virtual ~StatusWriter() = default;
  virtual Result<api::HorizontalPodAutoscaler> updateStatus(
      const api::HorizontalPodAutoscaler& hpa) = 0;
};

}  // namespace hpa::controller
