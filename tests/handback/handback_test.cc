// What each hpa-controller.io/ annotation becomes when kube-controller-manager decides again.

#include "handback/handback.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "controls/hpa_controls.h"
#include "handback_fixture.h"

namespace hpa::handback {
namespace {

using ::testing::Pair;
using ::testing::UnorderedElementsAre;

std::map<std::string, AnnotationKind> kindsOf(const HpaHandback& hpa) {
  std::map<std::string, AnnotationKind> kinds;
  for (const auto& a : hpa.annotations) kinds[shortName(a.key)] = a.kind;
  return kinds;
}

api::HorizontalPodAutoscaler annotated(std::map<std::string, std::string> annotations) {
  api::HorizontalPodAutoscaler hpa;
  hpa.metadata.namespace_ = "shop";
  hpa.metadata.name = "web";
  hpa.metadata.annotations = std::move(annotations);
  // One External metric, which hpa-controller.io/metric-sources can route.
  api::ExternalMetricSource queue;
  queue.metric.name = "queue_depth";
  // A per-pod target, which hpa-controller.io/forecast can make a floor of.
  queue.target = api::MetricTarget{api::kAverageValueTarget, std::nullopt,
                                   api::Quantity::fromValue(30), std::nullopt};
  hpa.spec.metrics.push_back(api::MetricSpec{queue});
  return hpa;
}

TEST(Handback, ClassifiesEveryAnnotationOfEachHpaThatCarriesOne) {
  const HandbackReport report = handbackReport(annotatedHpas());
  ASSERT_EQ(report.hpas.size(), 3u);  // batch/report carries none of ours
  const auto& web = report.hpas[0];
  EXPECT_EQ(web.ns + "/" + web.name, "shop/web");
  EXPECT_THAT(kindsOf(web), UnorderedElementsAre(Pair("paused", AnnotationKind::Control),
                                                 Pair("schedule", AnnotationKind::Control),
                                                 Pair("history", AnnotationKind::Bookkeeping)));
  const auto& worker = report.hpas[1];
  EXPECT_EQ(worker.ns + "/" + worker.name, "shop/worker");
  EXPECT_THAT(kindsOf(worker),
              UnorderedElementsAre(Pair("record-decision", AnnotationKind::IdleControl),
                                   Pair("last-decision", AnnotationKind::Bookkeeping),
                                   Pair("history", AnnotationKind::Bookkeeping)));
  const auto& api = report.hpas[2];
  EXPECT_EQ(api.ns + "/" + api.name, "tools/api");
  EXPECT_THAT(kindsOf(api),
              UnorderedElementsAre(Pair("sync-period", AnnotationKind::Control),
                                   Pair("pod-selection", AnnotationKind::Control),
                                   Pair("requests-source", AnnotationKind::Control),
                                   Pair("fallback", AnnotationKind::Control),
                                   Pair("record-decision", AnnotationKind::IdleControl),
                                   Pair("pasued", AnnotationKind::Unknown)));
  EXPECT_TRUE(web.controlsStopApplying());
  EXPECT_FALSE(worker.controlsStopApplying());
  EXPECT_EQ(report.withControlsThatStopApplying(), 2);
  EXPECT_EQ(report.withBookkeepingOnly(), 1);
}

TEST(Handback, EveryControlSaysWhatStopsInWordsOfItsOwn) {
  // A value that puts each control in effect; a control added without one fails here, and so
  // does one without its own words in handback.cc.
  const std::map<std::string, std::string> inEffect{
      {controls::kSyncPeriodAnnotation, "30s"},
      {controls::kPausedAnnotation, "true"},
      {controls::kPodSelectionAnnotation, "OwnerReferences"},
      {controls::kRequestsSourceAnnotation, "Actuated"},
      {controls::kRecordDecisionAnnotation, "true"},
      {controls::kFallbackAnnotation, "after=3,replicas=6"},
      {controls::kScheduleAnnotation, "- {start: \"0 8 * * 1-5\", duration: 10h, minReplicas: 10}"},
      {controls::kCpuInitializationPeriodAnnotation, "10m"},
      {controls::kInitialReadinessDelayAnnotation, "1m"},
      {controls::kWithinToleranceKeepAnnotation, "Spec"},
      {controls::kMetricSourcesAnnotation,
       "[{type: External, name: queue_depth, source: {apiGroup: keda.example.com}}]"},
      {controls::kForecastAnnotation, "{mode: Active, query: 'sum(queue_depth)'}"},
  };
  std::set<std::string> words;
  for (std::string_view key : controls::controlAnnotations()) {
    auto value = inEffect.find(std::string(key));
    ASSERT_NE(value, inEffect.end()) << key << ": give it a value in effect here";
    auto handback = handbackOf(annotated({{value->first, value->second}}));
    ASSERT_TRUE(handback);
    ASSERT_EQ(handback->annotations.size(), 1u);
    EXPECT_EQ(handback->annotations[0].kind, AnnotationKind::Control) << key;
    EXPECT_THAT(handback->annotations[0].whenHandedBack,
                ::testing::Not(::testing::HasSubstr("its effect stops")))
        << key << " has no words of its own in handback.cc";
    words.insert(handback->annotations[0].whenHandedBack);
  }
  EXPECT_EQ(words.size(), inEffect.size());
}

TEST(Handback, EveryRequestsSourceButSpecIsHandedBack) {
  for (const char* source : {"Actuated", "Limits"}) {
    auto handback = handbackOf(annotated({{controls::kRequestsSourceAnnotation, source}}));
    ASSERT_TRUE(handback) << source;
    EXPECT_EQ(handback->annotations[0].kind, AnnotationKind::Control) << source;
    EXPECT_EQ(handback->annotations[0].whenHandedBack, "utilization against spec requests again");
  }
  auto spec = handbackOf(annotated({{controls::kRequestsSourceAnnotation, "Spec"}}));
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->annotations[0].kind, AnnotationKind::IdleControl);
}

TEST(Handback, AControlThatChangesNothingNowIsIdle) {
  auto paused = handbackOf(annotated({{controls::kPausedAnnotation, "false"}}));
  ASSERT_TRUE(paused);
  EXPECT_EQ(paused->annotations[0].kind, AnnotationKind::IdleControl);
  EXPECT_EQ(paused->annotations[0].whenHandedBack, "no effect now");

  // The upstream field, where a server has it, wins over the annotation: the annotation is idle.
  auto hpa = annotated({{controls::kSyncPeriodAnnotation, "30s"}});
  hpa.spec.syncPeriodSeconds = 60;
  EXPECT_EQ(handbackOf(hpa)->annotations[0].kind, AnnotationKind::IdleControl);

  auto invalid = handbackOf(annotated({{controls::kSyncPeriodAnnotation, "soon"}}));
  EXPECT_EQ(invalid->annotations[0].kind, AnnotationKind::IdleControl);
  EXPECT_EQ(invalid->annotations[0].whenHandedBack, "invalid: ignored already");
}

TEST(Handback, APauseInOneDirectionSaysWhichDirectionComesBack) {
  auto down = handbackOf(annotated({{controls::kPausedAnnotation, "ScaleDown"}}));
  ASSERT_TRUE(down);
  EXPECT_EQ(down->annotations[0].kind, AnnotationKind::Control);
  EXPECT_EQ(down->annotations[0].whenHandedBack, "kube-controller-manager scales it down again");
  auto up = handbackOf(annotated({{controls::kPausedAnnotation, "ScaleUp"}}));
  EXPECT_EQ(up->annotations[0].whenHandedBack, "kube-controller-manager scales it up again");
  auto both = handbackOf(annotated({{controls::kPausedAnnotation, "true"}}));
  EXPECT_EQ(both->annotations[0].whenHandedBack, "kube-controller-manager scales it again");
}

TEST(Handback, AnHpaWithoutOurAnnotationsIsNotListed) {
  EXPECT_FALSE(handbackOf(annotated({{"kubectl.kubernetes.io/last-applied-configuration", "{}"}})));
  EXPECT_FALSE(handbackOf(annotated({})));
}

}  // namespace
}  // namespace hpa::handback
