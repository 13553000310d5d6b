#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "controller/reconcile_observer.h"
#include "telemetry/decision_metrics.h"
#include "telemetry/write_metrics.h"

namespace hpa::telemetry {

// Upstream's HPA controller metrics (names, labels, help texts and buckets as
// kube-controller-manager exports them), plus work-queue depth and API request counts/latency.
class PrometheusObserver final : public controller::ReconcileObserver,
                                 public controller::RunLoopObserver {
 public:
  PrometheusObserver();

  void reconciliation(const std::string& action, const std::string& error,
                      Duration duration) override;
  void metricComputation(const std::string& action, const std::string& error, Duration duration,
                         const std::string& metricType) override;
  void desiredReplicas(const std::string& ns, const std::string& name, int replicas) override;

  void hpaCountChanged(int delta) override;
  void queueDepth(std::size_t depth) override;
  // `client`: the purpose of the API client that sent it (ClientSet).
  void apiRequest(const std::string& client, const std::string& verb, int code, Duration latency);
  void staleSkip() override;
  // Reconciles per HPA (hpa_controller_reconciles_total{namespace,name}): one more for an HPA,
  // and its series dropped when the HPA is deleted.
  void hpaReconciled(const std::string& ns, const std::string& name) override;
  // Each HPA's last decision (DecisionMetrics); its series go with hpaDeleted too.
  void hpaDecided(const std::string& ns, const std::string& name,
                  const report::DecisionOutcome& outcome) override;
  void hpaDeleted(const std::string& ns, const std::string& name) override;
  // Whether this process leads (hpa_controller_leader 1) or stands by (0), set when /metrics is
  // read.
  void leading(bool leader);
  // What an informer cache holds (informer::CacheSummary), set when /metrics is read.
  void informerCache(const std::string& resource, std::size_t objects, std::uint32_t digest);
  // How long the run loop has gone without progress (controller::RunLoop::stalledFor), set when
  // /metrics is read.
  void runLoopStalled(Duration stalled);
  // The Lease's spec.leaseTransitions as leader election last saw it, set when /metrics is read;
  // the series is absent until it was seen (nullopt).
  void leaderTransitions(std::optional<int> transitions);
  // Where the live writers report each write (hpa_controller_writes_total).
  controller::WriteObserver& writes() { return writes_; }

  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }
  // The text exposition format: the registry's families, then the decision metrics.
  std::string serialize() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& reconciliations_;
  prometheus::Family<prometheus::Histogram>& reconciliationDuration_;
  prometheus::Family<prometheus::Counter>& metricComputations_;
  prometheus::Family<prometheus::Histogram>& metricComputationDuration_;
  prometheus::Gauge& hpaCount_;
  prometheus::Family<prometheus::Gauge>& desiredReplicas_;
  prometheus::Gauge& queueDepth_;
  prometheus::Family<prometheus::Counter>& apiRequests_;
  prometheus::Family<prometheus::Histogram>& apiLatency_;
  prometheus::Counter& staleSkips_;
  prometheus::Family<prometheus::Counter>& reconcilesPerHpa_;
  prometheus::Family<prometheus::Gauge>& cacheObjects_;
  prometheus::Family<prometheus::Gauge>& cacheDigest_;
  prometheus::Gauge& leader_;
  prometheus::Gauge& runLoopStalled_;
  prometheus::Family<prometheus::Gauge>& leaderTransitions_;  // one series once seen
  WriteMetrics writes_;
  DecisionMetrics decisions_;
};

}  // namespace hpa::telemetry
