// The run loop's liveness on the fake clock: the watchdog alone, then a run loop whose worker is
// stuck in a reconcile, one whose keys no worker takes, an idle one and a standby.

#include "controller/run_loop_watchdog.h"

#include <condition_variable>
#include <mutex>
#include <optional>

#include "api/codec.h"
#include "controller/reconcile_fixture.h"
#include "controller/run_loop.h"
#include "controls/hpa_controls.h"
#include "fakes/eventually.h"
#include "fakes/fake_list_watch.h"
#include "fakes/run_loop_fakes.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using hpa::testing::eventually;
using hpa::testing::FakeListWatch;
using hpa::testing::RecordingRunLoopObserver;
using informer::Informer;

constexpr Duration kSyncPeriod = std::chrono::seconds(15);
const std::string kKey = "default/web";

TEST(StallThreshold, IsTwoMinutesOrFourSyncPeriodsWhicheverIsLonger) {
  EXPECT_EQ(stallThreshold(std::chrono::seconds(15)), std::chrono::minutes(2));
  EXPECT_EQ(stallThreshold(std::chrono::seconds(30)), std::chrono::minutes(2));
  EXPECT_EQ(stallThreshold(std::chrono::minutes(1)), std::chrono::minutes(4));
}

TEST(RunLoopWatchdog, AKeyHeldPastTheThresholdFailsAndNotBefore) {
  FakeClock clock;
  RunLoopWatchdog watchdog(clock, 2);
  const Duration threshold = std::chrono::minutes(2);
  {
    auto quick = watchdog.took(0, "default/quick");
    clock.step(std::chrono::seconds(1));
  }
  auto stuck = watchdog.took(1, "default/stuck");
  clock.step(threshold);
  EXPECT_EQ(watchdog.stalledFor(std::nullopt), threshold) << "a finished key leaves nothing behind";
  EXPECT_TRUE(watchdog.check(std::nullopt, 0, threshold).ok());
  clock.step(std::chrono::seconds(1));
  const Status failed = watchdog.check(std::nullopt, 0, threshold);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message,
            "stalled: a worker has held default/stuck for 2m1s (limit 2m0s)");
}

TEST(RunLoopWatchdog, KeysWaitingWithNoneTakenFail) {
  FakeClock clock;
  RunLoopWatchdog watchdog(clock, 1);
  const Time waitingSince = clock.now();
  clock.step(std::chrono::minutes(3));
  EXPECT_EQ(watchdog.stalledFor(waitingSince), std::chrono::minutes(3));
  const Status failed = watchdog.check(waitingSince, 7, std::chrono::minutes(2));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message, "stalled: 7 keys ready, none taken for 3m0s (limit 2m0s)");
  EXPECT_EQ(watchdog.stalledFor(std::nullopt), Duration::zero())
      << "nothing held, nothing waiting: idle";
}

// A lister over the informer's cache (as the daemon's) whose reads can be held, as a reconcile
// stuck on a request that never ends.
class HoldableHpaLister final : public HpaLister {
 public:
  explicit HoldableHpaLister(const Informer<api::HorizontalPodAutoscaler>& hpas) : hpas_(hpas) {}
  Result<std::shared_ptr<const api::HorizontalPodAutoscaler>> get(
      const std::string& ns, const std::string& name) const override {
    std::unique_lock<std::mutex> lock(mu_);
    ++reads_;
    cv_.wait(lock, [&] { return !holding_; });
    return hpas_.cache().get(api::objectKey(ns, name));
  }
  void hold() {
    std::lock_guard<std::mutex> lock(mu_);
    holding_ = true;
  }
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    holding_ = false;
    cv_.notify_all();
  }
  int reads() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reads_;
  }

 private:
  const Informer<api::HorizontalPodAutoscaler>& hpas_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool holding_ = false;
  mutable int reads_ = 0;
};

// The run loop over an informer of `hpa` (default/web unless told; or of none), with `workers`
// workers.
class RunLoopLiveness {
 public:
  explicit RunLoopLiveness(int workers, std::optional<api::HorizontalPodAutoscaler> hpa = webHpa())
      : clock_(kPodStart + std::chrono::minutes(30)) {
    scales_.scales["deployments/default/web"] = webScale(3);
    setWebPods(pods_, metrics_, clock_.now(), 3, 50);
    if (hpa) source_.putObject(api::encodeHorizontalPodAutoscaler(*hpa, "autoscaling/v2"));
    loop_ = std::make_unique<RunLoop>(controller_, hpas_, nullptr, observer_, stalenessGuard_,
                                      clock_, Logger::discard(),
                                      RunLoopSettings{kSyncPeriod, workers, nullptr, nullptr});
    loop_->registerHandlers();
    hpas_.start();
    const int hpas = hpa ? 1 : 0;
    EXPECT_TRUE(eventually([&] { return hpas_.hasSynced() && observer_.hpaCount() == hpas; }));
    loop_->startWorkers();
  }
  ~RunLoopLiveness() {
    lister_.release();
    hpas_.stop();
    loop_->shutDown();
  }

  FakeClock clock_;
  FakeListWatch source_;
  Informer<api::HorizontalPodAutoscaler> hpas_{source_, api::decodeCachedHorizontalPodAutoscaler,
                                               [](const api::HorizontalPodAutoscaler& h) {
                                                 return std::make_pair(h.metadata.namespace_,
                                                                       h.metadata.name);
                                               },
                                               clock_, Logger::discard()};
  HoldableHpaLister lister_{hpas_};
  hpa::testing::FakePodLister pods_;
  hpa::testing::FakeMetricsClient metrics_;
  hpa::testing::FakeScaleClient scales_;
  hpa::testing::FakeStatusWriter status_;
  hpa::testing::FakeEventRecorder events_;
  HorizontalController controller_{
      ControllerDependencies{lister_, pods_, metrics_, scales_, status_, events_, clock_,
                             Logger::discard()},
      ControllerOptions{}};
  RecordingRunLoopObserver observer_{clock_, [] { return true; }};
  StalenessGuard stalenessGuard_;
  std::unique_ptr<RunLoop> loop_;
};

TEST(RunLoopLivenessTest, AWorkerStuckInAReconcileFailsTheLeaderAfterTheThreshold) {
  RunLoopLiveness t(1);
  t.lister_.hold();
  t.loop_->startedLeading();
  ASSERT_TRUE(eventually([&] { return t.lister_.reads() == 1; }))
      << "the worker is inside the reconcile";
  const Duration threshold = stallThreshold(kSyncPeriod);
  t.clock_.step(threshold);
  EXPECT_EQ(t.loop_->stalledFor(), threshold);
  EXPECT_TRUE(t.loop_->liveness().ok()) << "not past the threshold yet";
  t.clock_.step(std::chrono::seconds(1));
  const Status stalled = t.loop_->liveness();
  ASSERT_FALSE(stalled.ok());
  EXPECT_NE(stalled.error().message.find("a worker has held default/web for 2m1s"),
            std::string::npos)
      << stalled.error().message;

  // The reconcile ends: the loop makes progress again.
  t.lister_.release();
  ASSERT_TRUE(eventually([&] { return t.observer_.reconcileCount() >= 1; }));
  ASSERT_TRUE(eventually([&] { return t.loop_->stalledFor() == Duration::zero(); }));
  EXPECT_TRUE(t.loop_->liveness().ok());
}

TEST(RunLoopLivenessTest, KeysThatNoWorkerTakesFailTheLeader) {
  RunLoopLiveness t(0);  // as workers frozen in the queue's get(): the key is never taken
  ASSERT_EQ(t.loop_->queueDepth(), 1u);
  t.loop_->startedLeading();
  t.clock_.step(std::chrono::minutes(2));
  EXPECT_TRUE(t.loop_->liveness().ok());
  t.clock_.step(std::chrono::seconds(1));
  const Status stalled = t.loop_->liveness();
  ASSERT_FALSE(stalled.ok());
  EXPECT_EQ(stalled.error().message, "stalled: 1 keys ready, none taken for 2m1s (limit 2m0s)");
  EXPECT_EQ(t.loop_->stalledFor(), std::chrono::minutes(2) + std::chrono::seconds(1));
}

TEST(RunLoopLivenessTest, AStandbyIsNeverFailedButShowsTheStall) {
  RunLoopLiveness t(0);
  t.clock_.step(std::chrono::hours(1));
  EXPECT_TRUE(t.loop_->liveness().ok());
  EXPECT_EQ(t.loop_->stalledFor(), std::chrono::hours(1));
  t.loop_->startedLeading();
  EXPECT_FALSE(t.loop_->liveness().ok());
  t.loop_->stoppedLeading();
  EXPECT_TRUE(t.loop_->liveness().ok());
}

TEST(RunLoopLivenessTest, AnIdleLeaderIsNeverStalled) {
  RunLoopLiveness t(1, std::nullopt);
  t.loop_->startedLeading();
  t.clock_.step(std::chrono::hours(1));
  EXPECT_EQ(t.loop_->stalledFor(), Duration::zero());
  EXPECT_TRUE(t.loop_->liveness().ok());
}

TEST(RunLoopLivenessTest, ALeaderIdleBetweenLongSyncPeriodsIsNeverStalled) {
  // Ten idle minutes between reconciles: the key due after them has not waited ten minutes.
  api::HorizontalPodAutoscaler hpa = webHpa();
  hpa.metadata.annotations[controls::kSyncPeriodAnnotation] = "10m";
  RunLoopLiveness t(1, hpa);
  t.loop_->startedLeading();
  for (std::size_t n = 1; n <= 4; ++n) {
    ASSERT_TRUE(eventually([&] { return t.observer_.reconcileCount() >= n; }));
    ASSERT_TRUE(
        eventually([&] { return t.loop_->queueDepth() == 0 && t.loop_->keysInFlight() == 0; }));
    // The worker lets go of the key in the watchdog just after the queue's done(): wait for both.
    ASSERT_TRUE(eventually([&] { return t.loop_->stalledFor() == Duration::zero(); }));
    // The ticker and the queue's delay loop park on the clock before it moves on.
    ASSERT_TRUE(eventually([&] { return t.clock_.waiterCount() == 2; }));
    t.clock_.step(std::chrono::minutes(10));
    // What must never be: the key due now seeming to have waited the ten minutes. Under load a
    // worker has been seen holding the key across the jump (a reconcile that began just before
    // it), which the watchdog then counts as held for the whole jump: the fake clock's artifact,
    // not a stall.
    const Status live = t.loop_->liveness();
    EXPECT_TRUE(live.ok() || live.error().message.rfind("stalled: a worker has held", 0) == 0)
        << live.error().message;
    if (live.ok()) {
      EXPECT_LT(t.loop_->stalledFor(), stallThreshold(kSyncPeriod));
    }
  }
}

}  // namespace
}  // namespace hpa::controller
