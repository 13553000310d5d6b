// hpa-controller.io/forecast at the controls' points, without a reconcile: a history with a clean
// daily cycle built here, the forecast the control makes of it, the floor, and what Preview and
// Active do with it.

#include "controls/forecast_control.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "controls/control_chain.h"
#include "fake_reconcile.h"
#include "fakes/fake_forecast_history.h"
#include "fakes/pod_builder.h"

namespace hpa::controls {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::HasSubstr;

// Two weeks of a daily cycle whose day starts 3 h before kNow: the load is rising at kNow (it
// peaks 3 h later), 10 +- 6 cores.
const Time kCycleStart = kNow - hours(24 * 14) - hours(3);

double truth(Time at) {
  const double day = std::chrono::duration<double>(hours(24)).count();
  return 10 + 6 * std::sin(2 * std::numbers::pi *
                           std::chrono::duration<double>(at - kCycleStart).count() / day);
}

// The pods a 50 % cpu target counts: 500m each, so 0.25 cores of load per pod at the target.
std::vector<api::Pod> webPods(int count, Duration startup) {
  std::vector<api::Pod> pods;
  for (int i = 0; i < count; ++i) {
    const Time created = kNow - hours(2) - minutes(i);
    api::Pod pod = hpa::testing::PodBuilder("web-" + std::to_string(i))
                       .container("app", 500)
                       .ready("True", created + startup)
                       .build();
    pod.creationTimestamp = created;
    pods.push_back(std::move(pod));
  }
  return pods;
}

// One reconcile's view and the proposal as the controls left it.
struct Reconciled {
  std::unique_ptr<FakeReconcile> reconcile;
  Proposal proposal;
};

class ForecastControlTest : public ::testing::Test {
 protected:
  ForecastControlTest() {
    history_.series = hpa::testing::dailyCycle(kCycleStart, kNow + hours(48), minutes(5), 10, 6);
  }

  // One reconcile of default/web at `at` with the annotation, through every point the forecast
  // uses: the bounds, the counted pods, the metrics' proposal, normalization, the status write.
  // `normalized`: the size normalization leaves (nullopt: the proposal as it arrives).
  Reconciled run(const std::string& annotation, std::int32_t proposed, Time at = kNow,
                 std::int32_t minReplicas = 1, std::int32_t maxReplicas = 100,
                 std::optional<std::int32_t> normalized = std::nullopt) {
    Reconciled r;
    r.reconcile = std::make_unique<FakeReconcile>(
        chain_, std::map<std::string, std::string>{{kForecastAnnotation, annotation}});
    r.reconcile->at = at;
    MetricsSetup setup;
    setup.minReplicas = minReplicas;
    setup.maxReplicas = maxReplicas;
    chain_.beforeMetrics(*r.reconcile, setup);
    std::vector<const api::Pod*> counted;
    for (const auto& p : pods_) counted.push_back(&p);
    const std::string resource = "cpu";
    const std::string container;
    chain_.requestsCounted(*r.reconcile,
                           {counted, resource, container, replicacalc::DecisionRules{}});
    chain_.afterMetrics(*r.reconcile, /*decided=*/true);
    r.proposal.currentReplicas = 3;
    r.proposal.desiredReplicas = proposed;
    r.proposal.reason = "cpu resource utilization (percentage of request) above target";
    chain_.afterProposal(*r.reconcile, Proposal::Stage::FromMetrics, r.proposal);
    if (normalized) r.proposal.desiredReplicas = *normalized;
    chain_.afterProposal(*r.reconcile, Proposal::Stage::Normalized, r.proposal);
    chain_.beforeWrite(*r.reconcile);
    return r;
  }

  // The history's last three hours ran at `factor` times the cycle's load, and an Active
  // forecast an hour ahead without margin is made from it.
  Reconciled runAfterThreeHoursAt(double factor, const std::string& options = "") {
    for (auto& sample : history_.series) {
      if (sample.at > kNow - hours(3) && sample.at <= kNow) sample.value *= factor;
    }
    return run("{lead: 1h, margin: 1" + options + "}", 3);
  }

  hpa::testing::FakeForecastHistory history_;
  ControlChain chain_{nullptr, &history_};
  std::vector<api::Pod> pods_ = webPods(3, minutes(3));
};

const ControlsReport::Forecast& forecastOf(const Reconciled& r) {
  return *r.reconcile->controlsReport().forecast;
}

const api::HorizontalPodAutoscalerCondition& conditionOf(const Reconciled& r, const char* type) {
  static const api::HorizontalPodAutoscalerCondition kNone{};
  const auto* c = r.reconcile->conditionNow(type);
  return c ? *c : kNone;
}

TEST_F(ForecastControlTest, APreviewForecastsAndChangesNothing) {
  const auto r = run("{lead: 1h, margin: 1}", 3);
  const auto& f = forecastOf(r);
  ASSERT_TRUE(f.value) << f.message;
  // The forecast is the load an hour ahead, not now's.
  EXPECT_NEAR(*f.value, truth(kNow + hours(1)), 0.03 * truth(kNow + hours(1)));
  EXPECT_GT(*f.value, truth(kNow) + 0.5);
  EXPECT_EQ(f.cycle, "daily");
  EXPECT_GT(f.confidence, 0.5);
  EXPECT_EQ(f.lead, hours(1));
  EXPECT_EQ(f.leadFrom, "annotation");
  ASSERT_TRUE(f.perPodTarget);
  EXPECT_DOUBLE_EQ(*f.perPodTarget, 0.25);
  ASSERT_TRUE(f.floor);
  EXPECT_EQ(*f.floor, static_cast<std::int32_t>(std::ceil(*f.value / 0.25)));
  EXPECT_GE(*f.floor, 59);
  EXPECT_LE(*f.floor, 63);
  // Nothing changes.
  EXPECT_EQ(r.proposal.desiredReplicas, 3);
  EXPECT_FALSE(r.proposal.limit);
  EXPECT_FALSE(f.raised);
  EXPECT_EQ(conditionOf(r, api::kForecastCondition).status, api::kConditionTrue);
  EXPECT_EQ(conditionOf(r, api::kForecastCondition).reason, api::kForecastPreview);
  EXPECT_THAT(conditionOf(r, api::kForecastCondition).message,
              HasSubstr(fmt::format("would set a floor of {} replicas; the decision is unchanged",
                                    *f.floor)));
  EXPECT_EQ(r.reconcile->conditionNow(api::kScalingLimited), nullptr);
  // What it asked the source for.
  ASSERT_EQ(history_.requests.size(), 1u);
  const auto& request = history_.requests[0];
  EXPECT_EQ(request.key, "default/web");
  EXPECT_EQ(request.metric, "cpu");
  EXPECT_THAT(request.query, HasSubstr("container_cpu_usage_seconds_total{namespace=\"default\""));
  EXPECT_EQ(request.range, forecast::ForecastOptions{}.maxHistory);
  EXPECT_EQ(request.step, forecast::ForecastOptions{}.step);
}

TEST_F(ForecastControlTest, ActiveRaisesTheProposalToTheFloorBeforeStabilization) {
  auto r = run("{mode: Active, lead: 1h}", 3);
  const auto& f = forecastOf(r);
  ASSERT_TRUE(f.floor) << f.message;
  // The proposal normalization receives is the floor: the stabilization window remembers it.
  EXPECT_EQ(r.proposal.desiredReplicas, *f.floor);
  EXPECT_EQ(r.proposal.reason, fmt::format("the forecast of cpu needs {} replicas", *f.floor));
  ASSERT_TRUE(r.proposal.limit);
  EXPECT_EQ(r.proposal.limit->replicas, *f.floor);
  EXPECT_TRUE(f.raised);
  EXPECT_TRUE(f.held);
  EXPECT_EQ(conditionOf(r, api::kScalingLimited).reason, api::kForecastFloor);
  EXPECT_THAT(conditionOf(r, api::kScalingLimited).message,
              HasSubstr(fmt::format("less than the forecast floor {}", *f.floor)));
  EXPECT_EQ(conditionOf(r, api::kForecastCondition).status, api::kConditionTrue);
  EXPECT_EQ(conditionOf(r, api::kForecastCondition).reason, api::kForecastFloor);
  EXPECT_THAT(conditionOf(r, api::kForecastCondition).message,
              HasSubstr(fmt::format("the floor is {}", *f.floor)));

  // Normalization kept another size (a rate limit): the floor did not decide.
  r = run("{mode: Active, lead: 1h}", 3, kNow, 1, 100, 12);
  EXPECT_TRUE(forecastOf(r).raised);
  EXPECT_FALSE(forecastOf(r).held);
  EXPECT_EQ(r.reconcile->conditionNow(api::kScalingLimited), nullptr);

  // Reactive scaling above the floor wins.
  r = run("{mode: Active, lead: 1h}", 90);
  EXPECT_EQ(r.proposal.desiredReplicas, 90);
  EXPECT_FALSE(r.proposal.limit);
  EXPECT_FALSE(forecastOf(r).raised);
}

TEST_F(ForecastControlTest, TheFloorKeepsWithinTheBounds) {
  auto r = run("{mode: Active, lead: 1h}", 3, kNow, 1, 10);
  ASSERT_TRUE(forecastOf(r).floor);
  EXPECT_EQ(*forecastOf(r).floor, 10);
  EXPECT_EQ(r.proposal.desiredReplicas, 10);
  r = run("{mode: Active, lead: 1h}", 80, kNow, 80, 100);
  EXPECT_EQ(*forecastOf(r).floor, 80);
  EXPECT_EQ(r.proposal.desiredReplicas, 80);
  EXPECT_FALSE(forecastOf(r).raised);
}

TEST_F(ForecastControlTest, AnAverageValueTargetNeedsNoPods) {
  pods_.clear();
  auto hpa = FakeReconcile::webHpa({{kForecastAnnotation, "{lead: 1h}"}});
  hpa.spec.metrics[0].source = api::ResourceMetricSource{
      "cpu", api::MetricTarget{api::kAverageValueTarget, std::nullopt,
                               *api::Quantity::parse("500m"), std::nullopt}};
  FakeReconcile reconcile(chain_, std::in_place, hpa);
  MetricsSetup setup;
  setup.minReplicas = 1;
  setup.maxReplicas = 100;
  chain_.beforeMetrics(reconcile, setup);
  chain_.beforeWrite(reconcile);
  const auto& f = *reconcile.controlsReport().forecast;
  ASSERT_TRUE(f.value && f.floor) << f.message;
  EXPECT_EQ(*f.floor, static_cast<std::int32_t>(std::ceil(*f.value / 0.5)));
}

// The last three hours ran at half the load the cycle repeats (a quiet day): the forecast is
// lowered in proportion, and its words say why; `recent: 0s` turns that off.
TEST_F(ForecastControlTest, AQuietStretchLowersTheForecastAndSaysSo) {
  auto r = runAfterThreeHoursAt(0.5);
  const auto& quiet = forecastOf(r);
  ASSERT_TRUE(quiet.value && quiet.recentRatio) << quiet.message;
  EXPECT_NEAR(*quiet.recentRatio, 0.5, 0.05);
  EXPECT_NEAR(*quiet.value, truth(kNow + hours(1)) / 2, 0.1 * truth(kNow + hours(1)));
  EXPECT_THAT(quiet.message, HasSubstr("lowered: the last 2h0m0s ran at 50 % of its forecast"));
  r = run("{lead: 1h, margin: 1, recent: 0s}", 3);
  const auto& unchecked = forecastOf(r);
  ASSERT_TRUE(unchecked.value) << unchecked.message;
  EXPECT_FALSE(unchecked.recentRatio);
  EXPECT_NEAR(*unchecked.value, truth(kNow + hours(1)), 0.05 * truth(kNow + hours(1)));
  EXPECT_THAT(unchecked.message, ::testing::Not(HasSubstr("lowered")));
}

// The last three hours ran 10 % above the cycle: the forecast is raised as much, and says so.
TEST_F(ForecastControlTest, ABusierStretchRaisesTheForecastAndSaysSo) {
  const auto r = runAfterThreeHoursAt(1.1);
  const auto& busier = forecastOf(r);
  ASSERT_TRUE(busier.value && busier.recentRatio) << busier.message;
  EXPECT_NEAR(*busier.recentRatio, 1.1, 0.02);
  EXPECT_NEAR(*busier.value, 1.1 * truth(kNow + hours(1)), 0.05 * truth(kNow + hours(1)));
  EXPECT_THAT(busier.message, HasSubstr("raised: the last 2h0m0s ran at 11"));
}

// ... plus the forecast's step (5 minutes): a forecast serves every sync of its step.
TEST_F(ForecastControlTest, ALeadNotGivenIsThePodsStartUpPlusASyncAndTheMetricsResolution) {
  auto r = run("{}", 3);
  EXPECT_EQ(forecastOf(r).leadFrom, "pods' start-up");
  EXPECT_EQ(forecastOf(r).startup, minutes(3));
  EXPECT_EQ(forecastOf(r).lead, minutes(3) + seconds(15) + seconds(30) + minutes(5));
  EXPECT_EQ(forecastOf(r).at, kNow + forecastOf(r).lead);
  pods_.clear();
  r = run("{}", 3);
  EXPECT_EQ(forecastOf(r).leadFrom, "initial readiness delay");
  EXPECT_EQ(forecastOf(r).lead, seconds(30) + seconds(15) + seconds(30) + minutes(5));
  // A utilization metric whose pods were not counted: a forecast, but no floor.
  EXPECT_TRUE(forecastOf(r).value);
  EXPECT_FALSE(forecastOf(r).floor);
  EXPECT_EQ(conditionOf(r, api::kForecastCondition).reason, api::kNoForecast);
  EXPECT_THAT(conditionOf(r, api::kForecastCondition).message,
              HasSubstr("no floor: the pods' cpu requests were not counted"));
}

TEST_F(ForecastControlTest, WithoutHistoryThereIsNoFloorAndTheConditionSaysWhy) {
  history_.error = "Prometheus at http://prometheus:9090 is unreachable";
  auto r = run("{mode: Active}", 3);
  EXPECT_FALSE(forecastOf(r).floor);
  EXPECT_EQ(r.proposal.desiredReplicas, 3);
  EXPECT_FALSE(r.proposal.limit);
  EXPECT_EQ(conditionOf(r, api::kForecastCondition).status, api::kConditionFalse);
  EXPECT_EQ(conditionOf(r, api::kForecastCondition).reason, api::kNoForecastHistory);
  EXPECT_THAT(conditionOf(r, api::kForecastCondition).message,
              HasSubstr("no history of cpu: Prometheus at http://prometheus:9090 is unreachable"));

  // Too little of it: the forecaster's words.
  history_.error.reset();
  history_.series = hpa::testing::dailyCycle(kNow - hours(20), kNow, minutes(5), 10, 6);
  ++history_.version;
  r = run("{mode: Active}", 3);
  EXPECT_FALSE(forecastOf(r).floor);
  EXPECT_EQ(r.proposal.desiredReplicas, 3);
  EXPECT_EQ(conditionOf(r, api::kForecastCondition).reason, api::kNoForecast);
  EXPECT_THAT(conditionOf(r, api::kForecastCondition).message, HasSubstr("no forecast of cpu: "));

  // No source at all.
  ControlChain sourceless(nullptr, nullptr);
  FakeReconcile reconcile(sourceless, {{kForecastAnnotation, "{mode: Active}"}});
  MetricsSetup setup;
  sourceless.beforeMetrics(reconcile, setup);
  sourceless.beforeWrite(reconcile);
  EXPECT_EQ(reconcile.conditionNow(api::kForecastCondition)->reason, api::kNoForecastHistory);
}

TEST_F(ForecastControlTest, AnInvalidAnnotationIsReportedAndReadsNoHistory) {
  const auto r = run("{mode: Active, quantile: 2}", 3);
  EXPECT_EQ(r.proposal.desiredReplicas, 3);
  EXPECT_EQ(forecastOf(r).reason, api::kInvalidForecast);
  EXPECT_EQ(conditionOf(r, api::kForecastCondition).status, api::kConditionFalse);
  EXPECT_EQ(conditionOf(r, api::kForecastCondition).reason, api::kInvalidForecast);
  EXPECT_THAT(conditionOf(r, api::kForecastCondition).message,
              HasSubstr("hpa-controller.io/forecast is invalid: "));
  EXPECT_EQ(history_.calls, 0);
}

TEST_F(ForecastControlTest, AForecastIsMadeOncePerHistoryVersionAndStep) {
  // kNow is 22:13:20: its 5-minute step runs from 22:10 to 22:15.
  auto r = run("{lead: 1h}", 3);
  EXPECT_FALSE(forecastOf(r).reused);
  const double first = *forecastOf(r).value;
  r = run("{lead: 1h}", 3, kNow + minutes(1));
  EXPECT_TRUE(forecastOf(r).reused);
  EXPECT_EQ(*forecastOf(r).value, first);
  EXPECT_EQ(history_.calls, 2) << "the history is asked every time: it says when it changed";
  r = run("{lead: 1h}", 3, kNow + minutes(2));
  EXPECT_FALSE(forecastOf(r).reused) << "22:15:20 is the next step";
  ++history_.version;
  r = run("{lead: 1h}", 3, kNow + minutes(2));
  EXPECT_FALSE(forecastOf(r).reused) << "a new version of the history";
  r = run("{lead: 2h}", 3, kNow + minutes(2));
  EXPECT_FALSE(forecastOf(r).reused) << "another lead";
  r = run("{lead: 2h}", 3, kNow + minutes(2));
  EXPECT_TRUE(forecastOf(r).reused);
  chain_.forget("default/web");
  EXPECT_THAT(history_.forgotten, ::testing::ElementsAre("default/web"));
  r = run("{lead: 2h}", 3, kNow + minutes(2));
  EXPECT_FALSE(forecastOf(r).reused) << "forgotten with the HPA";
}

TEST_F(ForecastControlTest, TheConditionGoesWithTheAnnotation) {
  auto r = run("{lead: 1h}", 3);
  ASSERT_NE(r.reconcile->conditionNow(api::kForecastCondition), nullptr);
  // The next reconcile reads the status this one wrote, without the annotation.
  auto hpa = FakeReconcile::webHpa({});
  hpa.status = r.reconcile->hpa().status;
  FakeReconcile plain(chain_, std::in_place, hpa);
  MetricsSetup setup;
  chain_.beforeMetrics(plain, setup);
  chain_.beforeWrite(plain);
  EXPECT_EQ(plain.conditionNow(api::kForecastCondition), nullptr);
  EXPECT_FALSE(plain.controlsReport().forecast);
  EXPECT_THAT(history_.forgotten, ::testing::ElementsAre("default/web"));

  // The source is told even when it never answered with a history.
  history_.error = "not fetched yet";
  run("{lead: 1h}", 3);
  FakeReconcile again(chain_, {});
  chain_.beforeMetrics(again, setup);
  EXPECT_THAT(history_.forgotten, ::testing::ElementsAre("default/web", "default/web"));
  // Once: an HPA without the annotation does not concern the source.
  chain_.beforeMetrics(again, setup);
  EXPECT_EQ(history_.forgotten.size(), 2u);
}

}  // namespace
}  // namespace hpa::controls
