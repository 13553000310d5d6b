#pragma once

#include <string>

#include "common/time.h"

namespace hpa::controller {

// Upstream's monitor labels: action scale_up / scale_down / none, error spec / internal / none.
inline constexpr const char* kActionScaleUp = "scale_up";
inline constexpr const char* kActionScaleDown = "scale_down";
inline constexpr const char* kActionNone = "none";
inline constexpr const char* kErrorSpec = "spec";
inline constexpr const char* kErrorInternal = "internal";
inline constexpr const char* kErrorNone = "none";

// Receives what upstream's podautoscaler monitor records (the daemon exports it to Prometheus).
class ReconcileObserver {
 public:
  virtual ~ReconcileObserver() = default;
  virtual void reconciliation(const std::string& action, const std::string& error, Duration duration) = 0;
  virtual void metricComputation(const std::string& action, const std::string& error, Duration duration,
                                 const std::string& metricType) = 0;
  virtual void desiredReplicas(const std::string& ns, const std::string& name, int replicas) = 0;
};

class NoopReconcileObserver final : public ReconcileObserver {
 public:
  void reconciliation(const std::string&, const std::string&, Duration) override {}
  void metricComputation(const std::string&, const std::string&, Duration, const std::string&) override {}
  void desiredReplicas(const std::string&, const std::string&, int) override {}
};

}  // namespace hpa::controller
