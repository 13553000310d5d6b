#include "replay/provisioning.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/codec.h"
#include "common/yaml_json.h"
#include "replay/replay.h"

namespace hpa::replay {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::Optional;

api::HorizontalPodAutoscaler hpaWith(const std::string& metrics) {
  auto docs = yamlDocumentsToJson(
      "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n"
      "metadata: {name: web, namespace: demo}\n"
      "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n"
      "  maxReplicas: 10\n  metrics:\n" +
      metrics);
  EXPECT_TRUE(docs.ok());
  auto hpa = api::decodeHorizontalPodAutoscaler(docs->front());
  EXPECT_TRUE(hpa.ok()) << hpa.error().message;
  return *hpa;
}

api::Pod podTemplate() {
  api::Pod pod;
  pod.containers.push_back({"app", {{"cpu", 400}, {"memory", 1000}}, false});
  pod.containers.push_back({"sidecar", {{"cpu", 100}}, false});
  return pod;
}

TEST(PerPodTargets, ReadEachTargetPerPod) {
  const auto hpa = hpaWith(
      "  - type: Resource\n"
      "    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}\n"
      "  - type: ContainerResource\n"
      "    containerResource: {name: cpu, container: app, target: {type: Utilization, "
      "averageUtilization: 50}}\n"
      "  - type: Pods\n"
      "    pods: {metric: {name: rps}, target: {type: AverageValue, averageValue: 10}}\n"
      "  - type: External\n"
      "    external: {metric: {name: queue}, target: {type: Value, value: 30}}\n"
      "  - type: Resource\n"
      "    resource: {name: ephemeral-storage, target: {type: Utilization, "
      "averageUtilization: 50}}\n");
  EXPECT_THAT(
      perPodTargets(hpa, podTemplate()),
      ElementsAre(Optional(300.0), Optional(200.0), Optional(10000.0), std::nullopt, std::nullopt));
}

Tick tick(int minute, int replicas, int ready, std::int64_t milli) {
  Tick t;
  t.at = minutes(minute);
  t.replicas = replicas;
  t.readyPods = ready;
  t.metrics.push_back({"cpu", milli, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                       api::MetricUnit::Cores});
  return t;
}

Trace cpuTrace(SeriesKind kind) {
  Trace t;
  t.series.push_back({"cpu", kind, {{seconds(0), 0}}, "t.csv"});
  return t;
}

// A target of 100m per pod, the tolerance 0.1: above target from 110m per Ready pod on.
TEST(MeasureProvisioning, CountsReadyPodsAboveTargetAndReplicas) {
  const std::vector<Tick> ticks{
      tick(0, 2, 2, 200),   // 100m each: at target
      tick(1, 4, 2, 300),   // 150m each: above, 2 Ready pods for 2 minutes
      tick(3, 4, 4, 440),   // 110m each: at the tolerance's edge, not above
      tick(4, 4, 4, 480),   // 120m each: above, 4 pods for a minute
      tick(5, 4, 4, 9999),  // the last sync: nothing after it
  };
  const Trace trace = cpuTrace(SeriesKind::Total);
  const std::vector<std::optional<double>> targets{100.0};
  const Provisioning p = measureProvisioning({ticks, trace, targets, 0.1});
  EXPECT_TRUE(p.perPodTarget);
  EXPECT_DOUBLE_EQ(p.podMinutesAboveTarget, 2 * 2 + 4 * 1);
  EXPECT_DOUBLE_EQ(p.replicaHours, (2 * 1 + 4 * 2 + 4 * 1 + 4 * 1) / 60.0);

  // Without a tolerance, the edge counts too; from minute 3 on, only the last two syncs.
  EXPECT_DOUBLE_EQ(measureProvisioning({ticks, trace, targets, 0}).podMinutesAboveTarget,
                   2 * 2 + 4 * 1 + 4 * 1);
  const Provisioning later = measureProvisioning({ticks, trace, targets, 0.1, minutes(3)});
  EXPECT_DOUBLE_EQ(later.podMinutesAboveTarget, 4);
  EXPECT_DOUBLE_EQ(later.replicaHours, 8 / 60.0);
}

// A per-pod series is what each pod reports, however many there are.
TEST(MeasureProvisioning, ReadsAPerPodSeriesAsIs) {
  const std::vector<Tick> ticks{tick(0, 3, 3, 150), tick(2, 3, 3, 150)};
  const Trace trace = cpuTrace(SeriesKind::PerPod);
  const std::vector<std::optional<double>> targets{100.0};
  EXPECT_DOUBLE_EQ(measureProvisioning({ticks, trace, targets, 0.1}).podMinutesAboveTarget, 6);
}

// Without a per-pod target nothing is above it; the replicas still cost.
TEST(MeasureProvisioning, SaysWhenNoTargetIsPerPod) {
  const std::vector<Tick> ticks{tick(0, 3, 3, 150000), tick(60, 3, 3, 150)};
  const Trace trace = cpuTrace(SeriesKind::Total);
  const std::vector<std::optional<double>> targets{std::nullopt};
  const Provisioning p = measureProvisioning({ticks, trace, targets, 0.1});
  EXPECT_FALSE(p.perPodTarget);
  EXPECT_DOUBLE_EQ(p.podMinutesAboveTarget, 0);
  EXPECT_DOUBLE_EQ(p.replicaHours, 3);
}

}  // namespace
}  // namespace hpa::replay
