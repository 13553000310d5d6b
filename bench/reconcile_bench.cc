// One steady reconcile of one HPA (10 pods at target, nothing to write) with the API behind
// in-memory fakes: the controller's own cost per sync, without and with the per-HPA controls that
// run every sync (a fallback that is not due, the recorded decision compared with the last one,
// a schedule of two windows in a time zone: one open, one closed).
#include <benchmark/benchmark.h>

#include <string>

#include "controller/horizontal_controller.h"
#include "fakes/controller_fakes.h"
#include "fakes/fake_clock.h"
#include "fakes/pod_builder.h"
#include "report/last_decision_report.h"

namespace {

using namespace hpa;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr int kPods = 10;
const Time kStart = Time(seconds(1'700'000'000));

// Answers cpu for the pods, as a batching client does from its shared answer: no recording.
class SteadyMetrics final : public metricsclient::MetricsClient {
 public:
  metricsclient::PodMetricsResult cpu;
  Result<metricsclient::PodMetricsResult> getResourceMetric(const std::string&, const std::string&,
                                                            const api::Selector&,
                                                            const std::string&, Duration) override {
    return cpu;
  }
  Result<metricsclient::PodMetricsResult> getRawMetric(const std::string&, const std::string&,
                                                       const api::Selector&, const api::Selector&,
                                                       Duration) override {
    return Error::of("no custom metrics here");
  }
  Result<metricsclient::ObjectMetricResult> getObjectMetric(const std::string&, const std::string&,
                                                            const api::CrossVersionObjectReference&,
                                                            const api::Selector&) override {
    return Error::of("no custom metrics here");
  }
  Result<metricsclient::ExternalMetricResult> getExternalMetric(const std::string&,
                                                                const std::string&,
                                                                const api::Selector&) override {
    return Error::of("no external metrics here");
  }
};

struct Rig {
  Rig(bool controls, bool schedule) : clock(kStart + minutes(30)) {
    hpa.metadata = {"web", "default", "uid-1", "1", 1, {}, {}, std::nullopt, std::nullopt};
    hpa.spec.scaleTargetRef = {"Deployment", "web", "apps/v1"};
    hpa.spec.minReplicas = 1;
    hpa.spec.maxReplicas = 20;
    api::MetricSpec cpu;
    cpu.source =
        api::ResourceMetricSource{"cpu", api::MetricTarget{api::kUtilizationTarget, {}, {}, 50}};
    hpa.spec.metrics = {cpu};
    if (controls) {
      hpa.metadata.annotations[controls::kFallbackAnnotation] = "after=3,replicas=4";
      hpa.metadata.annotations[controls::kRecordDecisionAnnotation] = "true";
    }
    if (schedule) {
      // kStart is a Tuesday, 22:13Z: the first window is open, the second one is not.
      hpa.metadata.annotations[controls::kScheduleAnnotation] =
          "- {name: evening, start: '0 20 * * 1-5', duration: 4h, timeZone: Europe/Paris, "
          "minReplicas: 2}\n"
          "- {name: year-end, start: '0 0 24 12 *', duration: 48h, timeZone: UTC, maxReplicas: "
          "20}\n";
    }
    api::Scale scale;
    scale.metadata.name = "web";
    scale.metadata.namespace_ = "default";
    scale.specReplicas = scale.statusReplicas = kPods;
    scale.selector = "app=web";
    scales.scales["deployments/default/web"] = scale;
    metrics.cpu.timestamp = clock.now() - seconds(20);
    for (int i = 0; i < kPods; ++i) {
      const std::string name = "web-" + std::to_string(i);
      pods.add(hpa::testing::PodBuilder(name)
                   .label("app", "web")
                   .startTime(kStart)
                   .ready("True", kStart + seconds(5))
                   .container("app", 100)
                   .build());
      metrics.cpu.metrics[name] = replicacalc::PodMetric{50, metrics.cpu.timestamp, minutes(1)};
    }
    hpas.put(hpa);
    controller.hpaAdded("default/web");
    // Two syncs to the steady state: the first writes the status, the second reads it back.
    for (int i = 0; i < 2; ++i) {
      sync(controls);
      if (!status.writes.empty()) hpa.status = status.writes.back().status;
      hpas.put(hpa);
    }
    status.writes.clear();
  }

  // One sync as the run loop makes it: the reconcile and, for an HPA that records its decision,
  // the decision compared with the one last written (as ApiDecisionPublisher does).
  void sync(bool controls) {
    clock.step(seconds(15));
    auto result = controller.reconcileKey("default/web");
    if (!controls) return;
    auto decision = report::lastDecisionOf(result.report);
    if (!stored) {
      stored = decision;
    } else if (!(*stored == *decision)) {
      stored = decision;
      ++decisionChanges;
    }
  }

  hpa::testing::FakeClock clock;
  api::HorizontalPodAutoscaler hpa;
  hpa::testing::FakeHpaLister hpas;
  hpa::testing::FakePodLister pods;
  SteadyMetrics metrics;
  hpa::testing::FakeScaleClient scales;
  hpa::testing::FakeStatusWriter status;
  hpa::testing::FakeEventRecorder events;
  controller::HorizontalController controller{
      controller::ControllerDependencies{hpas, pods, metrics, scales, status, events, clock,
                                         Logger::discard()},
      controller::ControllerOptions{}};
  std::optional<controls::LastDecision> stored;
  int decisionChanges = 0;
};

void BM_SteadyReconcile(benchmark::State& state) {
  const bool controls = state.range(0) != 0;
  const bool schedule = state.range(0) == 2;
  Rig rig(controls, schedule);
  for (auto _ : state) rig.sync(controls);
  if (!rig.status.writes.empty() || rig.decisionChanges != 0 || !rig.events.events.empty()) {
    state.SkipWithError("the steady state wrote something: not the case measured");
  }
  state.SetLabel(schedule   ? "fallback + record-decision + schedule"
                 : controls ? "fallback + record-decision"
                            : "no controls");
}
BENCHMARK(BM_SteadyReconcile)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
