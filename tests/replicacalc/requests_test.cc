// Pod requests, as in spec and as actuated by an in-place resize that has not caught up.
#include "replicacalc/requests.h"

#include <gtest/gtest.h>

#include "fakes/pod_builder.h"
#include "replicacalc/replica_calculator.h"

namespace hpa::replicacalc {
namespace {

using hpa::testing::PodBuilder;
using std::chrono::minutes;
using std::chrono::seconds;

const Time kStart = Time(seconds(1'700'000'000));
const Time kNow = kStart + minutes(10);

TEST(PodRequest, ActuatedRequestsReplaceSpecOnlyWhenAsked) {
  // app is being resized from 250m to 500m; the sidecar was resized from 100m to 50m.
  api::Pod pod = PodBuilder("p")
                     .container("app", 500)
                     .actuated("app", 250)
                     .initContainer("proxy", 50, true)
                     .actuated("proxy", 100)
                     .initContainer("setup", 1000, false)
                     .build();
  EXPECT_EQ(podRequest(pod, "", "cpu").value(), 550);
  EXPECT_EQ(podRequest(pod, "", "cpu", RequestsSource::Actuated).value(), 350);
  EXPECT_EQ(podRequest(pod, "app", "cpu", RequestsSource::Actuated).value(), 250);
  EXPECT_EQ(podRequest(pod, "proxy", "cpu", RequestsSource::Spec).value(), 50);
  EXPECT_TRUE(resizeInProgress(pod, "", "cpu"));
  EXPECT_TRUE(resizeInProgress(pod, "app", "cpu"));
  EXPECT_FALSE(resizeInProgress(pod, "app", "memory"));
  // An ordinary init container is never counted, resized or not.
  EXPECT_FALSE(resizeInProgress(pod, "setup", "cpu"));
}

TEST(PodRequest, PodsNotBeingResizedGiveTheSameAnswerEitherWay) {
  api::Pod pod = PodBuilder("p").container("app", 300).container("log", 100).build();
  EXPECT_EQ(podRequest(pod, "", "cpu").value(),
            podRequest(pod, "", "cpu", RequestsSource::Actuated).value());
  EXPECT_FALSE(resizeInProgress(pod, "", "cpu"));
  // The kubelet reporting what spec says keeps nothing extra.
  api::Pod same =
      PodBuilder("p").container("app", 300).actuated("app", 300).container("log", 100).build();
  EXPECT_EQ(same, pod);
}

TEST(PodRequest, ActuatedValueWithoutSpecRequestAndMissingRequests) {
  api::Pod pod = PodBuilder("p").containerWithoutRequests("app").actuated("app", 200).build();
  EXPECT_EQ(podRequest(pod, "", "cpu").error().message,
            "missing request for cpu in container app of Pod p");
  EXPECT_EQ(podRequest(pod, "", "cpu", RequestsSource::Actuated).value(), 200);
  api::Pod none = PodBuilder("q").containerWithoutRequests("app").build();
  EXPECT_EQ(podRequest(none, "", "cpu", RequestsSource::Actuated).error().message,
            "missing request for cpu in container app of Pod q");
}

TEST(PodRequest, PodLevelRequestsStaySpecButTheirContainerFallbackFollowsTheSource) {
  // Pod-level cpu wins; memory is not set at pod level and falls back to the containers.
  api::Pod pod = PodBuilder("p")
                     .container("app", 2048, "memory")
                     .actuated("app", 1024, "memory")
                     .podRequest("cpu", 400)
                     .build();
  EXPECT_EQ(podRequest(pod, "", "cpu", RequestsSource::Actuated).value(), 400);
  EXPECT_EQ(podRequest(pod, "", "memory").value(), 2048);
  EXPECT_EQ(podRequest(pod, "", "memory", RequestsSource::Actuated).value(), 1024);
}

TEST(PodRequest, LimitsReplaceRequestsPerContainerWithTheSameCountingRules) {
  // app asks 100m, limited to 500m; the proxy sidecar asks 50m, limited to 100m; the setup init
  // container (not a sidecar) is never counted, limit or not.
  api::Pod pod = PodBuilder("p")
                     .container("app", 100)
                     .limit("app", 500)
                     .initContainer("proxy", 50, true)
                     .limit("proxy", 100)
                     .initContainer("setup", 1000, false)
                     .limit("setup", 2000)
                     .build();
  EXPECT_EQ(podRequest(pod, "", "cpu").value(), 150);
  EXPECT_EQ(podRequest(pod, "", "cpu", RequestsSource::Limits).value(), 600);
  EXPECT_EQ(podRequest(pod, "app", "cpu", RequestsSource::Limits).value(), 500);
  EXPECT_EQ(podRequest(pod, "proxy", "cpu", RequestsSource::Limits).value(), 100);
  // Before 1.29 sidecars are not counted, against limits as against requests.
  DecisionRules older = decisionRulesOf(28);
  ASSERT_FALSE(older.sidecarRequests);
  EXPECT_EQ(podRequest(pod, "", "cpu", RequestsSource::Spec, older).value(), 100);
  EXPECT_EQ(podRequest(pod, "", "cpu", RequestsSource::Limits, older).value(), 500);
  // A named container that is not counted is not found, whichever the source.
  EXPECT_EQ(podRequest(pod, "setup", "cpu", RequestsSource::Limits).error().message,
            "container setup not found in Pod p");
  EXPECT_EQ(podRequest(pod, "db", "cpu", RequestsSource::Limits).error().message,
            "container db not found in Pod p");
}

TEST(PodRequest, AMissingLimitFailsAsAMissingRequestDoes) {
  // log has a request and no limit (the API server defaults a missing request from the limit,
  // never the other way round).
  api::Pod pod = PodBuilder("web-1")
                     .container("app", 100)
                     .limit("app", 500)
                     .container("log", 20)
                     .initContainer("proxy", 50, true)
                     .build();
  EXPECT_EQ(podRequest(pod, "", "cpu").value(), 170);
  EXPECT_EQ(podRequest(pod, "", "cpu", RequestsSource::Limits).error().message,
            "missing limit for cpu in container log of Pod web-1");
  EXPECT_EQ(podRequest(pod, "app", "cpu", RequestsSource::Limits).value(), 500);
  EXPECT_EQ(podRequest(pod, "proxy", "cpu", RequestsSource::Limits).error().message,
            "missing limit for cpu in container proxy of Pod web-1");
  // A limit of another resource is not one of cpu.
  api::Pod memoryOnly =
      PodBuilder("web-2").container("app", 100).limit("app", 512, "memory").build();
  EXPECT_EQ(podRequest(memoryOnly, "", "cpu", RequestsSource::Limits).error().message,
            "missing limit for cpu in container app of Pod web-2");
  EXPECT_EQ(podRequest(memoryOnly, "", "memory", RequestsSource::Limits).value(), 512);
}

TEST(PodRequest, PodLevelLimitsWithOverheadAndTheirContainerFallback) {
  // Pod-level cpu request 400m and limit 1000m, runtime overhead 100m; memory is not set at pod
  // level. app has cpu, cache memory.
  PodBuilder b = PodBuilder("p")
                     .container("app", 300)
                     .limit("app", 600)
                     .container("cache", 256, "memory")
                     .podRequest("cpu", 400)
                     .podLimit("cpu", 1000)
                     .overhead("cpu", 100);
  api::Pod pod = b.build();
  EXPECT_EQ(podRequest(pod, "", "cpu").value(), 500);
  EXPECT_EQ(podRequest(pod, "", "cpu", RequestsSource::Limits).value(), 1100);
  // A named container reads its own limit, without overhead.
  EXPECT_EQ(podRequest(pod, "app", "cpu", RequestsSource::Limits).value(), 600);
  // Memory: no pod-level limit, and a container without a memory limit: the pod has none.
  EXPECT_EQ(podRequest(pod, "", "memory").value(), 256);
  EXPECT_EQ(podRequest(pod, "", "memory", RequestsSource::Limits).error().message,
            "missing pod-level limit for memory in Pod p");
  // With every container limited, their sum stands in.
  api::Pod limited =
      PodBuilder(b).limit("cache", 1024, "memory").limit("app", 512, "memory").build();
  EXPECT_EQ(podRequest(limited, "", "memory", RequestsSource::Limits).value(), 1536);
  // An ordinary init container without a limit leaves the pod unbounded too.
  api::Pod init = PodBuilder(b)
                      .limit("cache", 1024, "memory")
                      .limit("app", 512, "memory")
                      .initContainer("setup", 64, false, "memory")
                      .build();
  EXPECT_EQ(podRequest(init, "", "memory", RequestsSource::Limits).error().message,
            "missing pod-level limit for memory in Pod p");
  // A pod-level request without a pod-level limit: the containers' limits stand in for cpu too.
  api::Pod requestOnly =
      PodBuilder("q").container("app", 300).limit("app", 600).podRequest("cpu", 400).build();
  EXPECT_EQ(podRequest(requestOnly, "", "cpu", RequestsSource::Limits).value(), 600);
  // A resource pod-level resources do not cover has no fallback.
  api::Pod gpu = PodBuilder("g")
                     .container("app", 1000, "nvidia.com/gpu")
                     .limit("app", 1000, "nvidia.com/gpu")
                     .podRequest("cpu", 400)
                     .build();
  EXPECT_EQ(podRequest(gpu, "", "nvidia.com/gpu", RequestsSource::Limits).error().message,
            "missing pod-level limit for nvidia.com/gpu in Pod g");
  // Without the PodLevelResources gate the containers count, as for requests: cache has no cpu
  // limit (nor request).
  DecisionRules gateOff;
  gateOff.gates.podLevelResources = false;
  EXPECT_EQ(podRequest(pod, "", "cpu", RequestsSource::Spec, gateOff).error().message,
            "missing request for cpu in container cache of Pod p");
  EXPECT_EQ(podRequest(pod, "", "cpu", RequestsSource::Limits, gateOff).error().message,
            "missing limit for cpu in container cache of Pod p");
}

TEST(PodRequest, APodLevelLimitAloneBringsPodLevelResourcesInForLimitsOnly) {
  // A hand-made pod (the API server would default the pod-level request from the limit).
  api::Pod pod =
      PodBuilder("p").container("app", 300).limit("app", 600).podLimit("cpu", 800).build();
  EXPECT_EQ(podRequest(pod, "", "cpu").value(), 300);
  EXPECT_EQ(podRequest(pod, "", "cpu", RequestsSource::Limits).value(), 800);
}

// Four pods at 200m of cpu each. Spec was just raised from 250m to 500m on two of them (a VPA
// scaling up vertically); the kubelet has not actuated it yet.
struct MidResize {
  std::vector<api::Pod> pods;
  PodMetricsInfo metrics;
  MidResize() {
    for (int i = 0; i < 4; ++i) {
      const std::string name = "p" + std::to_string(i);
      PodBuilder b = PodBuilder(name)
                         .startTime(kStart)
                         .ready("True", kStart + seconds(10))
                         .container("app", i < 2 ? 500 : 250);
      if (i < 2) b.actuated("app", 250);
      pods.push_back(b.build());
      metrics[name] = PodMetric{200, kNow - seconds(30), minutes(1)};
    }
  }
  Result<Calculation> calc(RequestsSource source) const {
    std::vector<const api::Pod*> pointers;
    for (const auto& p : pods) pointers.push_back(&p);
    CalculatorOptions options{minutes(5), seconds(30), true, source};
    return calcResourceUtilizationReplicas(ResourceUtilizationInput{
        4, 80, "cpu", "", Tolerances{0.1, 0.1}, pointers, metrics, kNow, kNow, options});
  }
};

TEST(PendingResize, SpecRequestsScaleDownPrematurelyActuatedDoNot) {
  MidResize s;
  auto spec = s.calc(RequestsSource::Spec);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->utilization, 53);  // 800m of 1500m
  EXPECT_EQ(spec->replicas, 3);      // upstream scales in while the resize is pending
  auto actuated = s.calc(RequestsSource::Actuated);
  ASSERT_TRUE(actuated.ok()) << actuated.error().message;
  EXPECT_EQ(actuated->utilization, 80);  // 800m of the 1000m actually running
  EXPECT_EQ(actuated->replicas, 4);
  EXPECT_EQ(actuated->pods[0].request, 250);
  EXPECT_EQ(spec->pods[0].request, 500);
}

TEST(PendingResize, AVerticalScaleDownInFlightDoesNotTriggerAScaleOut) {
  // Spec lowered from 400m to 200m, still running at 400m, using 300m.
  std::vector<api::Pod> pods;
  PodMetricsInfo metrics;
  for (int i = 0; i < 2; ++i) {
    const std::string name = "q" + std::to_string(i);
    pods.push_back(PodBuilder(name)
                       .startTime(kStart)
                       .ready("True", kStart + seconds(10))
                       .container("app", 200)
                       .actuated("app", 400)
                       .build());
    metrics[name] = PodMetric{300, kNow - seconds(30), minutes(1)};
  }
  std::vector<const api::Pod*> pointers{&pods[0], &pods[1]};
  auto run = [&](RequestsSource source) {
    return calcResourceUtilizationReplicas(
        ResourceUtilizationInput{2, 75, "cpu", "", Tolerances{0.1, 0.1}, pointers, metrics, kNow,
                                 kNow, CalculatorOptions{minutes(5), seconds(30), false, source}});
  };
  EXPECT_EQ(run(RequestsSource::Spec)->replicas, 4);      // 150 %: doubles
  EXPECT_EQ(run(RequestsSource::Actuated)->replicas, 2);  // 75 %: on target
}

}  // namespace
}  // namespace hpa::replicacalc
