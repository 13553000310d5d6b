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
