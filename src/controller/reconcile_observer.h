#pragma once

#include <cstddef>
#include <string>

#include "common/time.h"
#include "report/decision_outcome.h"

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
  virtual void reconciliation(const std::string& action, const std::string& error,
                              Duration duration) = 0;
  virtual void metricComputation(const std::string& action, const std::string& error,
                                 Duration duration, const std::string& metricType) = 0;
  virtual void desiredReplicas(const std::string& ns, const std::string& name, int replicas) = 0;
};

class NoopReconcileObserver final : public ReconcileObserver {
 public:
  void reconciliation(const std::string&, const std::string&, Duration) override {}
  void metricComputation(const std::string&, const std::string&, Duration,
                         const std::string&) override {}
  void desiredReplicas(const std::string&, const std::string&, int) override {}
};

// What the run loop reports around the reconciles (the daemon exports it to Prometheus).
class RunLoopObserver {
 public:
  virtual ~RunLoopObserver() = default;
  virtual void hpaCountChanged(int delta) = 0;
  virtual void queueDepth(std::size_t depth) = 0;
  // A reconcile skipped because the HPA cache is older than our own last status write.
  virtual void staleSkip() = 0;
  virtual void hpaReconciled(const std::string& ns, const std::string& name) = 0;
  // What the leader's reconcile of an HPA decided (series of an HPA go with hpaDeleted).
  virtual void hpaDecided(const std::string& ns, const std::string& name,
                          const report::DecisionOutcome& outcome) = 0;
  virtual void hpaDeleted(const std::string& ns, const std::string& name) = 0;
};

class NoopRunLoopObserver final : public RunLoopObserver {
 public:
  void hpaCountChanged(int) override {}
  void queueDepth(std::size_t) override {}
  void staleSkip() override {}
  void hpaReconciled(const std::string&, const std::string&) override {}
  void hpaDecided(const std::string&, const std::string&, const report::DecisionOutcome&) override {
  }
  void hpaDeleted(const std::string&, const std::string&) override {}
};

}  // namespace hpa::controller
