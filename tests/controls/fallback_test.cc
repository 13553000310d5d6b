// hpa-controller.io/fallback: parsing, thresholds and proposals, and the failure runs.

#include "controls/fallback.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controls/metric_failure_store.h"

namespace hpa::controls {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

// Any instant: the runs and thresholds are relative to it.
const Time kPodStart = Time(seconds(1'700'000'000));
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(FallbackSpec, ParsesCountsDurationsAndBehaviors) {
  auto f = parseFallback("after=3,replicas=6");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->afterFailures, 3);
  EXPECT_FALSE(f->afterDuration);
  EXPECT_EQ(f->behavior, FallbackBehavior::Static);
  EXPECT_EQ(f->replicas, 6);

  f = parseFallback(" after = 2m , behavior = current-if-higher , replicas = 4 ");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_FALSE(f->afterFailures);
  EXPECT_EQ(f->afterDuration, minutes(2));
  EXPECT_EQ(f->behavior, FallbackBehavior::CurrentIfHigher);
  EXPECT_EQ(f->replicas, 4);

  f = parseFallback("after=90s,behavior=current");  // current needs no replicas
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->behavior, FallbackBehavior::Current);
  f = parseFallback("after=1,behavior=current-if-lower,replicas=0");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->behavior, FallbackBehavior::CurrentIfLower);
}

TEST(FallbackSpec, RejectsWhatCannotBeMeant) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "after is required"},
      {"replicas=3", "after is required"},
      {"after=3", "replicas is required with behavior static"},
      {"after=3,behavior=current-if-higher",
       "replicas is required with behavior current-if-higher"},
      {"after=0,replicas=3", "between 1 and 1000"},
      {"after=-2,replicas=3", "between 1 and 1000"},
      {"after=1001,replicas=3", "between 1 and 1000"},
      {"after=0s,replicas=3", "must be positive"},
      {"after=soon,replicas=3", "neither a count of failures nor a duration"},
      {"after=3,replicas=-1", "must be a count of replicas"},
      {"after=3,replicas=3.5", "must be a count of replicas"},
      {"after=3,replicas=99999999999", "must be a count of replicas"},
      {"after=3,behavior=Static,replicas=3", "behavior \"Static\" must be static, current"},
      {"after=3,replica=3", "unknown key \"replica\""},
      {"after 3", "is not key=value"},
  };
  for (const auto& [text, want] : cases) {
    auto f = parseFallback(text);
    ASSERT_FALSE(f.ok()) << text;
    EXPECT_THAT(f.error().message, HasSubstr(want)) << text;
  }
}

TEST(FallbackSpec, FormatsAsTheAnnotationSpellsIt) {
  for (const char* text :
       {"after=3,replicas=6", "after=2m0s,behavior=current-if-higher,replicas=4",
        "after=1,behavior=current", "after=1m30s,behavior=current-if-lower,replicas=0"}) {
    auto f = parseFallback(text);
    ASSERT_TRUE(f.ok()) << text;
    EXPECT_EQ(formatFallback(*f), text);
  }
}

TEST(FallbackRule, ThresholdsCountFailuresOrTime) {
  const Time t0 = kPodStart;
  FallbackSpec byCount{3, std::nullopt, FallbackBehavior::Static, 5};
  EXPECT_FALSE(fallbackDue(byCount, {t0, 0}, t0));
  EXPECT_FALSE(fallbackDue(byCount, {t0, 2}, t0 + minutes(10)));  // time does not count
  EXPECT_TRUE(fallbackDue(byCount, {t0, 3}, t0));
  EXPECT_TRUE(fallbackDue(byCount, {t0, 4}, t0));

  FallbackSpec byTime{std::nullopt, minutes(2), FallbackBehavior::Static, 5};
  EXPECT_FALSE(
      fallbackDue(byTime, {t0, 50}, t0 + minutes(2) - seconds(1)));  // failures do not count
  EXPECT_TRUE(fallbackDue(byTime, {t0, 2}, t0 + minutes(2)));        // the edge is inclusive
  EXPECT_FALSE(fallbackDue(byTime, {t0, 0}, t0 + minutes(5)));       // no failure, no fallback
}

TEST(FallbackRule, BehaviorsAgainstTheCurrentSize) {
  auto spec = [](FallbackBehavior b) { return FallbackSpec{1, std::nullopt, b, 5}; };
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::Static), 2), 5);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::Static), 9), 5);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::Current), 2), 2);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::Current), 9), 9);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::CurrentIfHigher), 2), 5);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::CurrentIfHigher), 9), 9);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::CurrentIfLower), 2), 2);
  EXPECT_EQ(fallbackReplicas(spec(FallbackBehavior::CurrentIfLower), 9), 5);
}

TEST(MetricFailureStore, RunsGrowUntilTheMetricWorks) {
  MetricFailureStore store;
  const Time t0 = kPodStart;
  EXPECT_EQ(store.failed("ns/a", 1, 2, t0), (FailureRun{t0, 1}));
  EXPECT_EQ(store.failed("ns/a", 1, 2, t0 + seconds(15)), (FailureRun{t0, 2}));
  EXPECT_EQ(store.failed("ns/a", 0, 2, t0 + seconds(15)),
            (FailureRun{t0 + seconds(15), 1}));  // its own run
  EXPECT_EQ(store.failed("ns/b", 1, 2, t0 + seconds(20)),
            (FailureRun{t0 + seconds(20), 1}));  // another HPA
  store.succeeded("ns/a", 1);
  EXPECT_EQ(store.failed("ns/a", 1, 2, t0 + seconds(30)), (FailureRun{t0 + seconds(30), 1}));
  EXPECT_EQ(store.failed("ns/a", 0, 2, t0 + seconds(30)), (FailureRun{t0 + seconds(15), 2}));
  // The metrics changed: every run starts again.
  EXPECT_EQ(store.failed("ns/a", 0, 3, t0 + seconds(45)), (FailureRun{t0 + seconds(45), 1}));
  store.erase("ns/a");
  EXPECT_EQ(store.failed("ns/a", 0, 3, t0 + seconds(60)), (FailureRun{t0 + seconds(60), 1}));
}

}  // namespace
}  // namespace hpa::controls
