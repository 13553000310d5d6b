#include "sim/pod_plan.h"

#include <gtest/gtest.h>

#include "sim/observed_pod.h"

namespace hpa::sim {
namespace {

using namespace std::chrono_literals;
using Action = PodPlan::Action;

const Time kCreated = *parseRFC3339("2026-11-23T10:00:00Z");
const PodTiming kTiming{1s, 2s};

ObservedPod created() {
  ObservedPod p;
  p.namespace_ = "demo";
  p.name = "web-1";
  p.creationTimestamp = kCreated;
  p.containers = {{"app", "example/web"}, {"sidecar", "example/proxy"}};
  return p;
}

ObservedPod bound() {
  auto p = created();
  p.nodeName = "sim-node-0";
  return p;
}

TEST(PodPlan, DeletionIsConfirmedFirst) {
  auto p = created();
  p.deletionTimestamp = kCreated;
  EXPECT_EQ(planPod(p, kCreated, kTiming).action, Action::Delete);
}

TEST(PodPlan, UnboundPodIsBound) {
  auto plan = planPod(created(), kCreated, kTiming);
  EXPECT_EQ(plan.action, Action::Bind);
  EXPECT_FALSE(plan.recheckAfter);
}

TEST(PodPlan, WaitsOutTheStartDelay) {
  auto plan = planPod(bound(), kCreated + 400ms, kTiming);
  EXPECT_EQ(plan.action, Action::None);
  EXPECT_EQ(plan.recheckAfter, Duration(600ms));
}

TEST(PodPlan, StartsRunningNotReadyThenBecomesReady) {
  const Time now = kCreated + 1500ms;
  auto plan = planPod(bound(), now, kTiming);
  EXPECT_EQ(plan.action, Action::SetStatus);
  EXPECT_EQ(plan.startTime, now);
  EXPECT_FALSE(plan.ready);
  EXPECT_EQ(plan.recheckAfter, Duration(2s));

  auto running = bound();
  running.phase = "Running";
  running.startTime = now;
  // Written and seen: nothing to do until the readiness delay has passed.
  plan = planPod(running, now + 500ms, kTiming);
  EXPECT_EQ(plan.action, Action::None);
  EXPECT_EQ(plan.recheckAfter, Duration(1500ms));

  plan = planPod(running, now + 2s, kTiming);
  EXPECT_EQ(plan.action, Action::SetStatus);
  EXPECT_TRUE(plan.ready);
  EXPECT_EQ(plan.startTime, now);  // the recorded start, not the time of this write
  EXPECT_FALSE(plan.recheckAfter);

  running.ready = true;
  plan = planPod(running, now + 1h, kTiming);
  EXPECT_EQ(plan.action, Action::None);
  EXPECT_FALSE(plan.recheckAfter);
}

TEST(PodPlan, StatusPatchDescribesARunningPod) {
  auto p = bound();
  PodPlan plan;
  plan.action = Action::SetStatus;
  plan.startTime = kCreated + 1s;
  plan.ready = true;
  auto patch = statusPatch(p, plan, 2s)["status"];
  EXPECT_EQ(patch["phase"], "Running");
  EXPECT_EQ(patch["startTime"], "2026-11-23T10:00:01Z");
  ASSERT_EQ(patch["conditions"].size(), 4u);
  EXPECT_EQ(patch["conditions"][3]["type"], "Ready");
  EXPECT_EQ(patch["conditions"][3]["status"], "True");
  EXPECT_EQ(patch["conditions"][3]["lastTransitionTime"], "2026-11-23T10:00:03Z");
  ASSERT_EQ(patch["containerStatuses"].size(), 2u);
  EXPECT_EQ(patch["containerStatuses"][1]["name"], "sidecar");
  EXPECT_EQ(patch["containerStatuses"][1]["image"], "example/proxy");
  EXPECT_EQ(patch["containerStatuses"][1]["ready"], true);
}

TEST(ObservedPod, DecodesWhatTheKubeletNeeds) {
  auto j = nlohmann::json::parse(R"({
    "metadata": {"name": "web-1", "namespace": "demo", "resourceVersion": "7", "labels": {"app": "web"},
                 "creationTimestamp": "2026-11-23T10:00:00Z"},
    "spec": {"nodeName": "sim-node-0", "containers": [{"name": "app", "image": "example/web"}]},
    "status": {"phase": "Running", "startTime": "2026-11-23T10:00:01Z",
               "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "True"}]}})");
  auto p = decodeObservedPod(j);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->name, "web-1");
  EXPECT_EQ(p->nodeName, "sim-node-0");
  EXPECT_EQ(p->labels.get("app"), "web");
  EXPECT_EQ(p->creationTimestamp, kCreated);
  EXPECT_EQ(p->startTime, kCreated + 1s);
  EXPECT_TRUE(p->ready);
  EXPECT_FALSE(p->deletionTimestamp);
  ASSERT_EQ(p->containers.size(), 1u);
  EXPECT_EQ(p->containers[0].image, "example/web");
  auto sim = p->toSimPod();
  EXPECT_EQ(sim.containers, std::vector<std::string>{"app"});
  EXPECT_TRUE(sim.ready);

  j["status"]["startTime"] = 12;
  auto bad = decodeObservedPod(j);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("status.startTime"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(decodeObservedPod(nlohmann::json::object()).ok());
}

}  // namespace
}  // namespace hpa::sim
