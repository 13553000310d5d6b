// The per-HPA controls' annotations: parsing and validation.

#include "controls/hpa_controls.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hpa::controls {
namespace {

using std::chrono::hours;
using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

api::HorizontalPodAutoscaler annotated(std::map<std::string, std::string> annotations) {
  api::HorizontalPodAutoscaler hpa;
  hpa.metadata.annotations = std::move(annotations);
  return hpa;
}

TEST(HpaControls, NoAnnotationsMeanUpstreamBehavior) {
  auto c = parseControls(annotated({{"hpa-controller.io/history", "{}"}, {"other", "x"}}));
  EXPECT_FALSE(c.any());
  EXPECT_FALSE(c.syncPeriod);
  EXPECT_EQ(c.pause, Pause::None);
  EXPECT_EQ(c.podSelection, PodSelection::LabelSelector);
  EXPECT_EQ(c.requestsSource, replicacalc::RequestsSource::Spec);
  EXPECT_THAT(c.errors, IsEmpty());
}

TEST(HpaControls, ReadsEveryControl) {
  auto c = parseControls(annotated({{kSyncPeriodAnnotation, "5s"},
                                    {kPausedAnnotation, "true"},
                                    {kPodSelectionAnnotation, "OwnerReferences"},
                                    {kRequestsSourceAnnotation, "Actuated"}}));
  EXPECT_TRUE(c.any());
  EXPECT_EQ(c.syncPeriod, seconds(5));
  EXPECT_EQ(c.syncPeriodSource, kSyncPeriodAnnotation);
  EXPECT_EQ(c.pause, Pause::Both);
  EXPECT_EQ(c.podSelection, PodSelection::OwnerReferences);
  EXPECT_EQ(c.requestsSource, replicacalc::RequestsSource::Actuated);
  EXPECT_THAT(c.errors, IsEmpty());
  // The defaults spelled out are valid too.
  c = parseControls(annotated({{kPausedAnnotation, "false"},
                               {kPodSelectionAnnotation, "LabelSelector"},
                               {kRequestsSourceAnnotation, "Spec"}}));
  EXPECT_FALSE(c.any());
}

TEST(HpaControls, RequestsSourceLimitsChangesDecisions) {
  auto c = parseControls(annotated({{kRequestsSourceAnnotation, "Limits"}}));
  EXPECT_EQ(c.requestsSource, replicacalc::RequestsSource::Limits);
  EXPECT_TRUE(c.any());
  EXPECT_THAT(c.errors, IsEmpty());
  EXPECT_STREQ(requestsSourceName(c.requestsSource), "Limits");
  EXPECT_THAT(decisionChangingControls(c),
              ElementsAre("hpa-controller.io/requests-source: Limits"));
  // Values are case-sensitive, as the other controls' are.
  c = parseControls(annotated({{kRequestsSourceAnnotation, "limits"}}));
  EXPECT_EQ(c.requestsSource, replicacalc::RequestsSource::Spec);
  ASSERT_EQ(c.errors.size(), 1u);
}

TEST(HpaControls, ListsEveryAnnotationItReads) {
  EXPECT_THAT(controlAnnotations(),
              ElementsAre(kSyncPeriodAnnotation, kPausedAnnotation, kPodSelectionAnnotation,
                          kRequestsSourceAnnotation, kRecordDecisionAnnotation, kFallbackAnnotation,
                          kScheduleAnnotation, kCpuInitializationPeriodAnnotation,
                          kInitialReadinessDelayAnnotation, kWithinToleranceKeepAnnotation,
                          kMetricSourcesAnnotation, kForecastAnnotation));
  // Each is read: an unusable value of any of them is reported under its key.
  for (std::string_view key : controlAnnotations()) {
    const auto c = parseControls(annotated({{std::string(key), "not a value of any control"}}));
    ASSERT_EQ(c.errors.size(), 1u) << key;
    EXPECT_EQ(c.errors[0].control, key);
  }
}

TEST(HpaControls, SyncPeriodBoundsAreInclusive) {
  EXPECT_EQ(parseControls(annotated({{kSyncPeriodAnnotation, "1s"}})).syncPeriod, seconds(1));
  EXPECT_EQ(parseControls(annotated({{kSyncPeriodAnnotation, "1h"}})).syncPeriod,
            std::chrono::hours(1));
  EXPECT_EQ(parseControls(annotated({{kSyncPeriodAnnotation, "1m30s"}})).syncPeriod, seconds(90));
  for (const char* bad : {"999ms", "1h0m1s", "0s", "-5s"}) {
    auto c = parseControls(annotated({{kSyncPeriodAnnotation, bad}}));
    EXPECT_FALSE(c.syncPeriod) << bad;
    ASSERT_EQ(c.errors.size(), 1u) << bad;
    EXPECT_EQ(c.errors[0].reason, "InvalidSyncPeriod");
    EXPECT_EQ(c.errors[0].message,
              fmt::format("hpa-controller.io/sync-period \"{}\" is invalid: must be between 1s "
                          "and 1h0m0s; the global sync period applies",
                          bad));
  }
  auto c = parseControls(annotated({{kSyncPeriodAnnotation, "5"}}));
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].message,
            "hpa-controller.io/sync-period \"5\" is invalid: time: missing unit in duration \"5\"; "
            "the global sync "
            "period applies");
}

TEST(HpaControls, TheUpstreamFieldWinsOverTheAnnotation) {
  auto hpa = annotated({{kSyncPeriodAnnotation, "5s"}});
  hpa.spec.syncPeriodSeconds = 30;
  auto c = parseControls(hpa);
  EXPECT_EQ(c.syncPeriod, seconds(30));
  EXPECT_EQ(c.syncPeriodSource, "spec.syncPeriodSeconds");
  hpa.spec.syncPeriodSeconds = 0;  // invalid: the global period, not the annotation
  c = parseControls(hpa);
  EXPECT_FALSE(c.syncPeriod);
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].control, "spec.syncPeriodSeconds");
  EXPECT_EQ(c.errors[0].reason, "InvalidSyncPeriod");
}

TEST(HpaControls, InvalidValuesFallBackToTheDefaults) {
  auto c = parseControls(annotated({{kPausedAnnotation, "yes"},
                                    {kPodSelectionAnnotation, "ownerreferences"},
                                    {kRequestsSourceAnnotation, "Status"}}));
  EXPECT_EQ(c.pause, Pause::None);
  EXPECT_EQ(c.podSelection, PodSelection::LabelSelector);
  EXPECT_EQ(c.requestsSource, replicacalc::RequestsSource::Spec);
  ASSERT_EQ(c.errors.size(), 3u);
  for (const auto& e : c.errors) EXPECT_EQ(e.reason, "InvalidControl");
  EXPECT_EQ(
      c.errors[0].message,
      "hpa-controller.io/paused \"yes\" is invalid: must be true, false, ScaleUp (no scale-up) or "
      "ScaleDown (no scale-down); scaling is not paused");
  EXPECT_EQ(
      c.errors[1].message,
      "hpa-controller.io/pod-selection \"ownerreferences\" is invalid: must be LabelSelector or "
      "OwnerReferences; LabelSelector applies");
  EXPECT_EQ(
      c.errors[2].message,
      "hpa-controller.io/requests-source \"Status\" is invalid: must be Spec, Actuated or Limits; "
      "Spec applies");
  EXPECT_TRUE(c.any());
  EXPECT_EQ(c.errorText(),
            c.errors[0].message + "; " + c.errors[1].message + "; " + c.errors[2].message);
}

TEST(HpaControls, PausedTakesTheDirectionItHolds) {
  const std::pair<const char*, Pause> cases[] = {
      {"true", Pause::Both},  {"True", Pause::Both},       {"1", Pause::Both},
      {"false", Pause::None}, {"ScaleUp", Pause::ScaleUp}, {"ScaleDown", Pause::ScaleDown}};
  for (const auto& [value, pause] : cases) {
    const auto c = parseControls(annotated({{kPausedAnnotation, value}}));
    EXPECT_EQ(c.pause, pause) << value;
    EXPECT_THAT(c.errors, IsEmpty()) << value;
    EXPECT_EQ(c.any(), pause != Pause::None) << value;
  }
  for (const char* bad : {"scaleDown", "SCALEDOWN", "ScaleIn", "Down", "ScaleUp,ScaleDown", ""}) {
    const auto c = parseControls(annotated({{kPausedAnnotation, bad}}));
    EXPECT_EQ(c.pause, Pause::None) << bad;
    ASSERT_EQ(c.errors.size(), 1u) << bad;
    EXPECT_EQ(c.errors[0].reason, "InvalidControl");
    EXPECT_THAT(c.errors[0].message, HasSubstr("must be true, false, ScaleUp (no scale-up) or "
                                               "ScaleDown (no scale-down); scaling is not paused"));
  }
  EXPECT_STREQ(pauseName(Pause::ScaleDown), "ScaleDown");
  EXPECT_STREQ(pauseWords(Pause::ScaleUp), "scale-up paused");
}

TEST(HpaControls, StartupWindowsAreDurationsUpToAnHour) {
  auto c = parseControls(annotated(
      {{kCpuInitializationPeriodAnnotation, "10m"}, {kInitialReadinessDelayAnnotation, "0s"}}));
  EXPECT_EQ(c.cpuInitializationPeriod, std::chrono::minutes(10));
  EXPECT_EQ(c.initialReadinessDelay, seconds(0)) << "0s is a window of its own, not the flag's";
  EXPECT_THAT(c.errors, IsEmpty());
  EXPECT_TRUE(c.any());
  EXPECT_THAT(decisionChangingControls(c),
              ElementsAre("hpa-controller.io/cpu-initialization-period: 10m0s",
                          "hpa-controller.io/initial-readiness-delay: 0s"));
  EXPECT_EQ(
      parseControls(annotated({{kInitialReadinessDelayAnnotation, "1h"}})).initialReadinessDelay,
      hours(1));
  for (const char* bad : {"1h0m1s", "-1s", "30", "soon"}) {
    c = parseControls(annotated(
        {{kCpuInitializationPeriodAnnotation, bad}, {kInitialReadinessDelayAnnotation, bad}}));
    EXPECT_FALSE(c.cpuInitializationPeriod) << bad;
    EXPECT_FALSE(c.initialReadinessDelay) << bad;
    ASSERT_EQ(c.errors.size(), 2u) << bad;
    EXPECT_EQ(c.errors[0].reason, "InvalidControl");
    EXPECT_THAT(c.errors[0].message,
                HasSubstr("; --horizontal-pod-autoscaler-cpu-initialization-period applies"));
    EXPECT_THAT(c.errors[1].message,
                HasSubstr("; --horizontal-pod-autoscaler-initial-readiness-delay applies"));
  }
  EXPECT_EQ(
      parseControls(annotated({{kCpuInitializationPeriodAnnotation, "2h"}})).errors[0].message,
      "hpa-controller.io/cpu-initialization-period \"2h\" is invalid: must be between 0s and "
      "1h0m0s; --horizontal-pod-autoscaler-cpu-initialization-period applies");
}

TEST(HpaControls, WithinToleranceKeepsStatusOrSpec) {
  auto c = parseControls(annotated({{kWithinToleranceKeepAnnotation, "Spec"}}));
  EXPECT_EQ(c.withinToleranceKeep, replicacalc::WithinToleranceKeep::Spec);
  EXPECT_TRUE(c.any());
  EXPECT_THAT(decisionChangingControls(c),
              ElementsAre("hpa-controller.io/within-tolerance-keep: Spec"));
  c = parseControls(annotated({{kWithinToleranceKeepAnnotation, "Status"}}));
  EXPECT_EQ(c.withinToleranceKeep, replicacalc::WithinToleranceKeep::Status);
  EXPECT_FALSE(c.any());
  for (const char* bad : {"spec", "SpecReplicas", "true", ""}) {
    c = parseControls(annotated({{kWithinToleranceKeepAnnotation, bad}}));
    EXPECT_EQ(c.withinToleranceKeep, replicacalc::WithinToleranceKeep::Status) << bad;
    ASSERT_EQ(c.errors.size(), 1u) << bad;
    EXPECT_EQ(c.errors[0].message,
              fmt::format("hpa-controller.io/within-tolerance-keep \"{}\" is invalid: must be "
                          "Status or Spec; Status applies",
                          bad));
  }
}

TEST(HpaControls, APauseHoldsOnlyTheMovesOfItsDirection) {
  EXPECT_FALSE(pauseHolds(Pause::None, 3, 6));
  EXPECT_TRUE(pauseHolds(Pause::Both, 3, 6));
  EXPECT_TRUE(pauseHolds(Pause::Both, 6, 3));
  EXPECT_FALSE(pauseHolds(Pause::Both, 3, 3));
  EXPECT_TRUE(pauseHolds(Pause::ScaleUp, 3, 6));
  EXPECT_FALSE(pauseHolds(Pause::ScaleUp, 6, 3));
  EXPECT_TRUE(pauseHolds(Pause::ScaleDown, 6, 3));
  EXPECT_FALSE(pauseHolds(Pause::ScaleDown, 3, 6));
  EXPECT_FALSE(pauseHolds(Pause::ScaleDown, 3, 3));
}

TEST(HpaControls, TheControlsThatChangeADecisionAreListedForTheShadow) {
  EXPECT_THAT(decisionChangingControls(parseControls(annotated({}))), IsEmpty());
  // Bookkeeping, the sync period and invalid values change no decision of upstream's.
  EXPECT_THAT(decisionChangingControls(parseControls(annotated({{kSyncPeriodAnnotation, "5s"},
                                                                {kRecordDecisionAnnotation, "true"},
                                                                {kPausedAnnotation, "sideways"}}))),
              IsEmpty());
  EXPECT_THAT(decisionChangingControls(parseControls(annotated(
                  {{kPausedAnnotation, "ScaleDown"}, {kRequestsSourceAnnotation, "Actuated"}}))),
              ElementsAre("hpa-controller.io/paused: ScaleDown",
                          "hpa-controller.io/requests-source: Actuated"));
  EXPECT_THAT(decisionChangingControls(parseControls(annotated({{kPausedAnnotation, "true"}}))),
              ElementsAre("hpa-controller.io/paused: true"));
}

}  // namespace
}  // namespace hpa::controls
