#include "replay/replay.h"

#include <fmt/format.h>

#include <algorithm>

#include "adapters/dry_run.h"
#include "api/label_selector.h"
#include "api/workload.h"
#include "explain/snapshot_clients.h"
#include "metricsclient/metric_routes.h"
#include "replay/simulated_metrics.h"
#include "replay/simulated_workload.h"
#include "replay/trace_history.h"
#include "report/decision_outcome.h"

namespace hpa::replay {
namespace {

// Offset 0 of a trace without absolute times. Any instant would do; a fixed one keeps runs
// reproducible to the byte.
const Time kRelativeEpoch = fromUnixSeconds(1'767'225'600);  // 2026-01-01T00:00:00Z

// The simulated time: moved by the replay loop only.
class SteppedClock final : public Clock {
 public:
  explicit SteppedClock(Time t) : t_(t) {}
  Time now() const override { return t_; }
  void set(Time t) { t_ = t; }
  // Nothing waits in a replay: the loop is the only thread.
  void waitUntil(std::condition_variable_any&, std::unique_lock<std::mutex>&, Time) override {}
  void sleepFor(Duration) override {}

 private:
  Time t_;
};

// The target's /scale: read from the simulated world, written through to the workload.
class WorkloadScaleClient final : public controller::ScaleClient {
 public:
  WorkloadScaleClient(explain::Snapshot& world, SimulatedWorkload& workload, const Clock& clock)
      : world_(world), snapshot_(world), workload_(workload), clock_(clock) {}

  Result<std::vector<controller::GroupVersionResource>> mappingsFor(
      const std::string& group, const std::string& kind) override {
    return snapshot_.mappingsFor(group, kind);
  }
  Result<api::Scale> getScale(const std::string& ns,
                              const controller::GroupVersionResource& resource,
                              const std::string& name) override {
    return snapshot_.getScale(ns, resource, name);
  }
  Result<api::Scale> updateScale(const std::string&, const controller::GroupVersionResource&,
                                 const api::Scale& scale) override {
    workload_.scale(scale.specReplicas, clock_.now());
    api::Scale& stored = world_.scales.front().scale;
    stored.specReplicas = workload_.replicas();
    stored.statusReplicas = static_cast<std::int32_t>(workload_.pods().size());
    return stored;
  }

 private:
  explain::Snapshot& world_;
  explain::SnapshotScaleClient snapshot_;
  SimulatedWorkload& workload_;
  const Clock& clock_;
};

// The HPA's status subresource: what the controller writes is what it reads next sync.
class WorldStatusWriter final : public controller::StatusWriter {
 public:
  explicit WorldStatusWriter(explain::Snapshot& world) : world_(world) {}
  Result<api::HorizontalPodAutoscaler> updateStatus(
      const api::HorizontalPodAutoscaler& hpa) override {
    world_.hpas.front().first.status = hpa.status;
    return hpa;
  }

 private:
  explain::Snapshot& world_;
};

TickMetric tickMetric(const api::MetricSpec& spec, const report::MetricReport* report,
                      const Trace& trace, Duration at) {
  TickMetric m;
  m.name = api::metricNameOf(spec);
  m.unit = api::unitOf(spec);
  if (const Series* s = trace.find(m.name)) m.value = s->valueAt(at);
  if (!report) return m;
  m.proposal = report->proposal;
  m.error = report->error;
  if (report->calculation) {
    m.utilization = report->calculation->utilization;
    if (!m.utilization) m.usage = report->calculation->usage;
  }
  return m;
}

Status checkReplayable(const api::HorizontalPodAutoscaler& hpa, const ReplayTarget& target,
                       const Trace& trace, const ReplayOptions& options) {
  if (options.controller.syncPeriod <= Duration{0})
    return Error::of("the sync period must be positive");
  if (options.reconcileDuration < Duration{0})
    return Error::of("the reconcile duration must not be negative");
  if (target.scale.metadata.name != hpa.spec.scaleTargetRef.name) {
    return Error::format("the target {} {} is not the HPA's scaleTargetRef ({} {})", target.kind,
                         target.scale.metadata.name, hpa.spec.scaleTargetRef.kind,
                         hpa.spec.scaleTargetRef.name);
  }
  return checkTraceCovers(hpa, trace);
}

// The world the controller reconciles in: the HPA and its target's Scale as the API would hold
// them, the workload's pods, the metrics APIs serving the trace, and a clock the loop moves.
class ReplayWorld {
 public:
  ReplayWorld(const api::HorizontalPodAutoscaler& hpa, const ReplayTarget& target,
              const Trace& trace, const ReplayOptions& options, Time start)
      : hpa_(hpa),
        trace_(trace),
        options_(options),
        start_(start),
        key_(api::objectKey(hpa.metadata.namespace_, hpa.metadata.name)),
        workload_(workloadSpec(hpa, target, options), start),
        world_(initialWorld(hpa, target)),
        clock_(start),
        hpas_(world_),
        pods_(world_),
        metrics_(world_),
        routes_(metrics_),
        scales_(world_, workload_, clock_),
        status_(world_),
        history_(trace, start),
        controller_(controller::ControllerDependencies{hpas_, pods_, metrics_, scales_, status_,
                                                       events_, clock_, Logger::discard(), nullptr,
                                                       nullptr, &routes_, &history_},
                    options.controller) {
    controller_.hpaAdded(key_);
  }

  const SimulatedWorkload& workload() const { return workload_; }

  struct Sync {
    Tick tick;
    report::ReconcileReport report;
  };

  // One sync at `at`: the pods and metrics of that moment, then the controller's reconcile.
  Sync sync(Duration at) {
    const Time now = start_ + at;
    clock_.set(now);
    workload_.advance(now);
    world_.pods = workload_.pods();
    world_.scales.front().scale.specReplicas = workload_.replicas();
    world_.scales.front().scale.statusReplicas = static_cast<std::int32_t>(workload_.pods().size());
    publishMetrics(hpa_, trace_, {at, now, options_.metricWindow}, workload_.pods(), world_);
    Sync out;
    out.tick.at = at;
    out.tick.readyPods = workload_.readyPods();
    out.report = controller_.reconcileKey(key_).report;
    recordReport(out.report, out.tick);
    return out;
  }

 private:
  // The initial pods have run for longer than any start-up rule looks back.
  static SimulatedWorkload::Spec workloadSpec(const api::HorizontalPodAutoscaler& hpa,
                                              const ReplayTarget& target,
                                              const ReplayOptions& options) {
    const Duration initialAge = std::max<Duration>(
        std::chrono::hours(1), options.controller.cpuInitializationPeriod + options.readinessDelay +
                                   options.controller.delayOfInitialReadinessStatus);
    return {hpa.metadata.namespace_,   target.scale.metadata.name, target.podTemplate,
            target.scale.specReplicas, options.readinessDelay,     initialAge};
  }

  static explain::Snapshot initialWorld(const api::HorizontalPodAutoscaler& hpa,
                                        const ReplayTarget& target) {
    explain::Snapshot world;
    world.hpas.emplace_back(hpa, explain::Origin{"replay", 1, ""});
    api::Scale scale = target.scale;
    scale.metadata.namespace_ = hpa.metadata.namespace_;
    // A built-in workload's Scale is found by its kind; a custom resource's as a Scale object.
    const bool builtin =
        api::builtinWorkloadByKind(api::apiGroupOf(hpa.spec.scaleTargetRef.apiVersion),
                                   target.kind) != nullptr;
    world.scales.push_back(
        {scale, builtin ? target.kind : "", {"replay", 1, ""}, target.podTemplate, std::nullopt});
    return world;
  }

  // What the sync decided, and the workload after it.
  void recordReport(const report::ReconcileReport& report, Tick& tick) const {
    for (size_t i = 0; i < hpa_.spec.metrics.size(); ++i) {
      tick.metrics.push_back(tickMetric(hpa_.spec.metrics[i],
                                        i < report.metrics.size() ? &report.metrics[i] : nullptr,
                                        trace_, tick.at));
    }
    tick.currentReplicas = report.currentReplicas;
    tick.proposed = report.metricReplicas;
    if (report.normalization) {
      tick.stabilized = report.normalization->stabilized;
      if (report::isStabilizationReason(report.normalization->ableToScale.reason)) {
        tick.stabilizedReason = report.normalization->ableToScale.reason;
        tick.stabilizedMessage = report.normalization->ableToScale.message;
      }
    }
    // A limit or a schedule window's bound (not the window, shown above) held the size.
    if (auto limited = report::limitingCondition(report);
        limited && !report::isStabilizationReason(limited->first)) {
      tick.limitedReason = std::move(limited->first);
      tick.limitedMessage = std::move(limited->second);
    }
    if (const auto& f = report.controls.forecast; f && f->value)
      tick.forecast = TickForecast{*f->value, f->lead, f->confidence, f->cycle, f->floor};
    tick.desiredReplicas = report.desiredReplicas;
    tick.replicas = workload_.replicas();
    tick.pods = static_cast<int>(workload_.pods().size());
    tick.branch = report::branchName(report.branch);
    tick.events = report.events;
    tick.error = report.error;
  }

  const api::HorizontalPodAutoscaler& hpa_;
  const Trace& trace_;
  const ReplayOptions& options_;
  const Time start_;
  const std::string key_;
  SimulatedWorkload workload_;
  explain::Snapshot world_;
  SteppedClock clock_;
  explain::SnapshotHpaLister hpas_;
  explain::SnapshotPodLister pods_;
  explain::SnapshotMetricsClient metrics_;
  // The simulated metrics are by name: a metric's source changes nothing here.
  metricsclient::SameClientRoutes routes_;
  WorkloadScaleClient scales_;
  WorldStatusWriter status_;
  adapters::DiscardingEventRecorder events_;  // events are in each reconcile's report
  TraceHistory history_;  // a forecast's history: the trace's past as of the clock
  controller::HorizontalController controller_;
};

std::string rescaleMessage(const report::ReconcileReport& report) {
  std::string message;
  for (const auto& e : report.events) {
    if (e.reason == api::kSuccessfulRescale) message = e.message;
  }
  return message;
}

}  // namespace

double scaleUpTolerance(const api::HorizontalPodAutoscaler& hpa, const ReplayOptions& options) {
  const auto& behavior = hpa.spec.behavior;
  if (behavior && behavior->scaleUp && behavior->scaleUp->tolerance)
    return static_cast<double>(behavior->scaleUp->tolerance->milliValue()) / 1000.0;
  return options.controller.tolerance;
}

Result<ReplayRun> replay(const api::HorizontalPodAutoscaler& hpa, const ReplayTarget& target,
                         const Trace& trace, const ReplayOptions& options) {
  if (auto replayable = checkReplayable(hpa, target, trace, options); !replayable.ok())
    return replayable.error();
  ReplayRun run;
  run.hpaKey = api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
  run.hpa = hpa;
  run.hpa.status = {};
  ReplayWorld world(run.hpa, target, trace, options, trace.origin.value_or(kRelativeEpoch));
  run.initialReplicas = world.workload().replicas();
  run.peakReplicas = world.workload().replicas();

  // Syncs a sync period (the HPA's own, when its controls set one, as the daemon's queue does)
  // plus the reconcile's duration apart, over the trace's length counted in sync periods: the
  // reconcile time makes the last ones a little later than the trace's end, where its last
  // values hold.
  const Duration end = options.duration.value_or(trace.end());
  Duration at{0};
  for (Duration periods{0}; periods <= end;) {
    auto [tick, report] = world.sync(at);
    if (report.rescaled)
      run.changes.push_back({at, report.currentReplicas, tick.replicas, rescaleMessage(report)});
    run.peakReplicas = std::max(run.peakReplicas, tick.replicas);
    run.ticks.push_back(std::move(tick));
    const Duration period =
        report.controls.controls.syncPeriod.value_or(options.controller.syncPeriod);
    periods += period;
    at += period + options.reconcileDuration;
  }
  run.finalReplicas = world.workload().replicas();
  const auto targets = perPodTargets(run.hpa, target.podTemplate);
  run.provisioning =
      measureProvisioning({run.ticks, trace, targets, scaleUpTolerance(run.hpa, options)});
  return run;
}

}  // namespace hpa::replay
