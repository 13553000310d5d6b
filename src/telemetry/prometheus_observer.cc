#include "telemetry/prometheus_observer.h"

#include <prometheus/text_serializer.h>

namespace hpa::telemetry {
namespace {

prometheus::Histogram::BucketBoundaries exponentialBuckets(double start, double factor, int count) {
  prometheus::Histogram::BucketBoundaries b;
  double v = start;
  for (int i = 0; i < count; ++i, v *= factor) b.push_back(v);
  return b;
}

const prometheus::Histogram::BucketBoundaries kHpaBuckets = exponentialBuckets(0.001, 2, 15);
const prometheus::Histogram::BucketBoundaries kApiBuckets = exponentialBuckets(0.001, 2, 16);

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

PrometheusObserver::PrometheusObserver()
    : registry_(std::make_shared<prometheus::Registry>()),
      reconciliations_(
          prometheus::BuildCounter()
              .Name("horizontal_pod_autoscaler_controller_reconciliations_total")
              .Help("[ALPHA] Number of reconciliations of HPA controller. The label 'action' "
                    "should be "
                    "either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be "
                    "either "
                    "'spec', 'internal', or 'none'. Note that if both spec and internal errors "
                    "happen "
                    "during a reconciliation, the first one to occur is reported in `error` label.")
              .Register(*registry_)),
      reconciliationDuration_(
          prometheus::BuildHistogram()
              .Name("horizontal_pod_autoscaler_controller_reconciliation_duration_seconds")
              .Help("[ALPHA] The time(seconds) that the HPA controller takes to reconcile once. "
                    "The label 'action' "
                    "should be either 'scale_down', 'scale_up', or 'none'. Also, the label 'error' "
                    "should be either "
                    "'spec', 'internal', or 'none'. Note that if both spec and internal errors "
                    "happen during a "
                    "reconciliation, the first one to occur is reported in `error` label.")
              .Register(*registry_)),
      metricComputations_(
          prometheus::BuildCounter()
              .Name("horizontal_pod_autoscaler_controller_metric_computation_total")
              .Help("[ALPHA] Number of metric computations. The label 'action' should be either "
                    "'scale_down', 'scale_up', or 'none'. Also, the label 'error' should be either "
                    "'spec', 'internal', or 'none'. The label 'metric_type' corresponds to "
                    "HPA.spec.metrics[*].type")
              .Register(*registry_)),
      metricComputationDuration_(
          prometheus::BuildHistogram()
              .Name("horizontal_pod_autoscaler_controller_metric_computation_duration_seconds")
              .Help("[ALPHA] The time(seconds) that the HPA controller takes to calculate one "
                    "metric. The label "
                    "'action' should be either 'scale_down', 'scale_up', or 'none'. The label "
                    "'error' should be "
                    "either 'spec', 'internal', or 'none'. The label 'metric_type' corresponds to "
                    "HPA.spec.metrics[*].type")
              .Register(*registry_)),
      hpaCount_(prometheus::BuildGauge()
                    .Name("horizontal_pod_autoscaler_controller_num_horizontal_pod_autoscalers")
                    .Help("[ALPHA] Current number of controlled HPA objects.")
                    .Register(*registry_)
                    .Add({})),
      desiredReplicas_(prometheus::BuildGauge()
                           .Name("horizontal_pod_autoscaler_controller_desired_replicas")
                           .Help("[ALPHA] Current desired replica count for HPA objects.")
                           .Register(*registry_)),
      queueDepth_(prometheus::BuildGauge()
                      .Name("workqueue_depth")
                      .Help("Current depth of workqueue")
                      .Register(*registry_)
                      .Add({{"name", "horizontalpodautoscaler"}})),
      apiRequests_(
          prometheus::BuildCounter()
              .Name("rest_client_requests_total")
              .Help(
                  "Number of HTTP requests, partitioned by client (purpose), verb and status code.")
              .Register(*registry_)),
      apiLatency_(prometheus::BuildHistogram()
                      .Name("rest_client_request_duration_seconds")
                      .Help("Request latency in seconds. Broken down by client (purpose) and verb.")
                      .Register(*registry_)),
      staleSkips_(prometheus::BuildCounter()
                      .Name("horizontal_pod_autoscaler_controller_stale_sync_skips_total")
                      .Help("Reconciles skipped because the HPA cache was older than the "
                            "controller's last status write.")
                      .Register(*registry_)
                      .Add({{"group", "autoscaling"}, {"resource", "horizontalpodautoscalers"}})),
      reconcilesPerHpa_(
          prometheus::BuildCounter()
              .Name("hpa_controller_reconciles_total")
              .Help(
                  "Reconciles of each HPA (its sync period in action: the global one or its own).")
              .Register(*registry_)),
      cacheObjects_(prometheus::BuildGauge()
                        .Name("hpa_controller_informer_cache_objects")
                        .Help("Objects held by each informer cache (resource: "
                              "horizontalpodautoscalers, pods, or a "
                              "workload kind).")
                        .Register(*registry_)),
      cacheDigest_(prometheus::BuildGauge()
                       .Name("hpa_controller_informer_cache_digest")
                       .Help("Order-independent digest of each informer cache: the sum modulo 2^32 "
                             "of FNV-1a-32 of "
                             "\"namespace/name resourceVersion\" per object, to compare with the "
                             "server's list.")
                       .Register(*registry_)),
      leader_(prometheus::BuildGauge()
                  .Name("hpa_controller_leader")
                  .Help("1 while this process holds the Lease and reconciles (or runs without "
                        "leader election), "
                        "0 while it stands by.")
                  .Register(*registry_)
                  .Add({})),
      runLoopStalled_(
          prometheus::BuildGauge()
              .Name("hpa_controller_run_loop_stalled_seconds")
              .Help("How long the run loop has gone without progress: the larger of the age of the "
                    "oldest reconcile in flight and, while keys are ready, the time since a worker "
                    "last "
                    "took one; 0 when idle. /healthz fails a leader past max(2m, 4 sync periods).")
              .Register(*registry_)
              .Add({})),
      leaderTransitions_(
          prometheus::BuildGauge()
              .Name("hpa_controller_leader_transitions")
              .Help("The Lease's spec.leaseTransitions as this process last saw it (acquiring, "
                    "renewing, or reading and watching it as a standby); absent until seen.")
              .Register(*registry_)),
      writes_(*registry_) {}

void PrometheusObserver::reconciliation(const std::string& action, const std::string& error,
                                        Duration duration) {
  reconciliations_.Add({{"action", action}, {"error", error}}).Increment();
  reconciliationDuration_.Add({{"action", action}, {"error", error}}, kHpaBuckets)
      .Observe(seconds(duration));
}

void PrometheusObserver::metricComputation(const std::string& action, const std::string& error,
                                           Duration duration, const std::string& metricType) {
  metricComputations_.Add({{"action", action}, {"error", error}, {"metric_type", metricType}})
      .Increment();
  metricComputationDuration_
      .Add({{"action", action}, {"error", error}, {"metric_type", metricType}}, kHpaBuckets)
      .Observe(seconds(duration));
}

void PrometheusObserver::desiredReplicas(const std::string& ns, const std::string& name,
                                         int replicas) {
  desiredReplicas_.Add({{"namespace", ns}, {"hpa_name", name}}).Set(replicas);
}

void PrometheusObserver::hpaCountChanged(int delta) { hpaCount_.Increment(delta); }

void PrometheusObserver::queueDepth(std::size_t depth) {
  queueDepth_.Set(static_cast<double>(depth));
}

void PrometheusObserver::apiRequest(const std::string& client, const std::string& verb, int code,
                                    Duration latency) {
  const std::string codeText = code == 0 ? "<error>" : std::to_string(code);
  apiRequests_.Add({{"client", client}, {"verb", verb}, {"code", codeText}}).Increment();
  apiLatency_.Add({{"client", client}, {"verb", verb}}, kApiBuckets).Observe(seconds(latency));
}

void PrometheusObserver::staleSkip() { staleSkips_.Increment(); }

void PrometheusObserver::hpaReconciled(const std::string& ns, const std::string& name) {
  reconcilesPerHpa_.Add({{"namespace", ns}, {"name", name}}).Increment();
}

void PrometheusObserver::hpaDecided(const std::string& ns, const std::string& name,
                                    const report::DecisionOutcome& outcome) {
  decisions_.record(ns, name, outcome);
}

void PrometheusObserver::hpaDeleted(const std::string& ns, const std::string& name) {
  const prometheus::Labels labels{{"namespace", ns}, {"name", name}};
  if (reconcilesPerHpa_.Has(labels)) reconcilesPerHpa_.Remove(&reconcilesPerHpa_.Add(labels));
  decisions_.forget(ns, name);
}

void PrometheusObserver::leading(bool leader) { leader_.Set(leader ? 1 : 0); }

void PrometheusObserver::informerCache(const std::string& resource, std::size_t objects,
                                       std::uint32_t digest) {
  cacheObjects_.Add({{"resource", resource}}).Set(static_cast<double>(objects));
  cacheDigest_.Add({{"resource", resource}}).Set(static_cast<double>(digest));
}

void PrometheusObserver::runLoopStalled(Duration stalled) { runLoopStalled_.Set(seconds(stalled)); }

void PrometheusObserver::leaderTransitions(std::optional<int> transitions) {
  if (transitions) leaderTransitions_.Add({}).Set(*transitions);
}

std::string PrometheusObserver::serialize() const {
  std::string text = prometheus::TextSerializer().Serialize(registry_->Collect());
  decisions_.render(text);
  return text;
}

}  // namespace hpa::telemetry
