// The run loop (upstream's HorizontalController.Run) in simulated time: a real work queue and an
// informer over a fake list/watch, the controller on fakes, and a fake clock that the test steps.

#include "controller/run_loop.h"

#include <filesystem>
#include <fstream>

#include "api/codec.h"
#include "controller/reconcile_fixture.h"
#include "fakes/eventually.h"
#include "fakes/fake_list_watch.h"
#include "fakes/run_loop_fakes.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using namespace hpa::controls;
using hpa::testing::eventually;
using hpa::testing::FakeHistoryPersister;
using hpa::testing::FakeListWatch;
using hpa::testing::RecordingRunLoopObserver;
using informer::Informer;

constexpr Duration kSyncPeriod = std::chrono::seconds(15);
const std::string kKey = "default/web";

// The controller's HPA lister over the informer's cache, as the daemon wires it.
class InformerHpaLister final : public HpaLister {
 public:
  explicit InformerHpaLister(const Informer<api::HorizontalPodAutoscaler>& hpas) : hpas_(hpas) {}
  Result<std::shared_ptr<const api::HorizontalPodAutoscaler>> get(
      const std::string& ns, const std::string& name) const override {
    return hpas_.cache().get(api::objectKey(ns, name));
  }

 private:
  const Informer<api::HorizontalPodAutoscaler>& hpas_;
};

// One HPA "default/web" on Deployment web (3 replicas, at its cpu target), served by a fake
// list/watch to an informer; the run loop over it with one worker.
// Records what the loop offers for hpa-controller.io/last-decision.
class RecordingDecisions final : public DecisionPublisher {
 public:
  void publish(const api::HorizontalPodAutoscaler&, const std::optional<LastDecision>& decision,
               Time now) override {
    std::lock_guard lock(mu_);
    offered_.push_back({decision, now});
  }
  void forget(const std::string&) override {}
  std::vector<std::pair<std::optional<LastDecision>, Time>> offered() const {
    std::lock_guard lock(mu_);
    return offered_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::optional<LastDecision>, Time>> offered_;
};

class RunLoopTest : public ::testing::Test {
 protected:
  RunLoopTest() : clock_(kPodStart + minutes(30)), hpa_(webHpa()) {
    scales_.scales["deployments/default/web"] = webScale(3);
    setWebPods(pods_, metrics_, clock_.now(), 3, 50);
  }
  ~RunLoopTest() override {
    hpas_.stop();  // no more handler calls into the loop
    loop_.shutDown();
  }

  // Serves the HPA (a new resourceVersion each time).
  void serveHpa() { source_.putObject(api::encodeHorizontalPodAutoscaler(hpa_, "autoscaling/v2")); }
  // Registers the handlers, starts the informer and waits for its first listing, starts the
  // workers.
  void start() {
    loop_.registerHandlers();
    hpas_.start();
    ASSERT_TRUE(eventually([&] { return hpas_.hasSynced(); }));
    // The informer's add handlers run after it reports synced; one still to come when a test
    // starts leading would queue its HPA a second time, for a second reconcile at once.
    ASSERT_TRUE(
        eventually([&] { return observer_.hpaCount() == static_cast<int>(hpas_.cache().size()); }));
    loop_.startWorkers();
    // The ticker and the work queue's delay loop wait on the clock from now on.
    ASSERT_TRUE(eventually([&] { return clock_.waiterCount() == 2; }));
    // A worker still holding the key of an add when a test starts leading would see the lead and
    // reconcile it, then again for the key the lead queues: two reconciles at once.
    ASSERT_TRUE(eventually([&] { return loop_.queueDepth() == 0 && loop_.keysInFlight() == 0; }));
  }
  // Steps the clock and waits until its two sleepers (the ticker and the work queue's delay loop)
  // have parked again, so that whatever the step made due has been queued. Steps only once no
  // key is queued or in a worker's hands: a reconcile books its next sync from the clock after
  // it is reported, and a step in between would move that deadline.
  void step(Duration d) {
    ASSERT_TRUE(eventually([&] { return loop_.queueDepth() == 0 && loop_.keysInFlight() == 0; }));
    const size_t waits = clock_.waitsBegun();
    clock_.step(d);
    ASSERT_TRUE(
        eventually([&] { return clock_.waitsBegun() >= waits + 2 && clock_.waiterCount() == 2; }));
  }
  bool reconciledTimes(std::size_t n) {
    return eventually([&] { return observer_.reconcileCount() >= n; }) &&
           observer_.reconcileCount() == n;
  }

  FakeClock clock_;
  api::HorizontalPodAutoscaler hpa_;
  FakeListWatch source_;
  Informer<api::HorizontalPodAutoscaler> hpas_{source_, api::decodeCachedHorizontalPodAutoscaler,
                                               [](const api::HorizontalPodAutoscaler& h) {
                                                 return std::make_pair(h.metadata.namespace_,
                                                                       h.metadata.name);
                                               },
                                               clock_, Logger::discard()};
  InformerHpaLister lister_{hpas_};
  hpa::testing::FakePodLister pods_;
  hpa::testing::FakeMetricsClient metrics_;
  hpa::testing::FakeScaleClient scales_;
  hpa::testing::FakeStatusWriter status_;
  hpa::testing::FakeEventRecorder events_;
  HorizontalController controller_{
      ControllerDependencies{lister_, pods_, metrics_, scales_, status_, events_, clock_,
                             Logger::discard()},
      ControllerOptions{}};
  RecordingRunLoopObserver observer_{clock_, [this] { return loop_.leading(); }};
  FakeHistoryPersister persister_;
  RecordingDecisions decisions_;
  StalenessGuard stalenessGuard_;
  std::atomic<int> syncPeriods_{0};
  RunLoop loop_{
      controller_,       hpas_,
      &persister_,       observer_,
      stalenessGuard_,   clock_,
      Logger::discard(), RunLoopSettings{kSyncPeriod, 1, [this] { ++syncPeriods_; }, &decisions_}};
};

TEST_F(RunLoopTest, OffersTheDecisionOfAnHpaThatRecordsIt) {
  hpa_.metadata.annotations[kRecordDecisionAnnotation] = "true";
  serveHpa();
  start();
  loop_.startedLeading();
  ASSERT_TRUE(reconciledTimes(1));
  ASSERT_TRUE(eventually([&] { return decisions_.offered().size() == 1; }));
  const auto [first, at] = decisions_.offered()[0];
  ASSERT_TRUE(first);
  EXPECT_EQ(first->currentReplicas, 3);
  EXPECT_EQ(at, observer_.reconciled()[0].at);

  // Stops recording, the old annotation still on it: offered for removal.
  hpa_.metadata.annotations.erase(kRecordDecisionAnnotation);
  hpa_.metadata.annotations[kLastDecisionAnnotation] = lastDecisionJson(*first, at).dump();
  serveHpa();
  ASSERT_TRUE(eventually([&] { return decisions_.offered().size() == 2; }));
  EXPECT_FALSE(decisions_.offered()[1].first);
}

TEST_F(RunLoopTest, ReportsEachDecisionsOutcome) {
  serveHpa();
  start();
  loop_.startedLeading();
  ASSERT_TRUE(reconciledTimes(1));
  ASSERT_TRUE(eventually([&] { return observer_.decided(kKey).has_value(); }));
  const auto outcome = *observer_.decided(kKey);
  // 3 pods at the cpu target: the metrics propose 3, nothing limits, the read is this reconcile's.
  EXPECT_EQ(outcome.currentReplicas, 3);
  EXPECT_EQ(outcome.desiredReplicas, 3);
  EXPECT_EQ(outcome.proposedReplicas, 3);
  EXPECT_EQ(outcome.limitedBy, report::DecisionLimit::None);
  EXPECT_TRUE(outcome.scalingActive);
  EXPECT_EQ(outcome.metricsReadAt, observer_.reconciled()[0].at);
}

TEST_F(RunLoopTest, OffersNothingForHpasThatDoNotRecord) {
  serveHpa();
  start();
  loop_.startedLeading();
  ASSERT_TRUE(reconciledTimes(1));
  step(kSyncPeriod);
  ASSERT_TRUE(reconciledTimes(2));
  EXPECT_TRUE(decisions_.offered().empty());
}

TEST_F(RunLoopTest, ReconcilesOnlyWhileLeading) {
  serveHpa();
  start();
  ASSERT_TRUE(eventually([&] { return observer_.hpaCount() == 1; }));  // the informer announced it
  ASSERT_TRUE(eventually([&] { return loop_.queueDepth() == 0; }));    // a worker took the key...
  step(kSyncPeriod);  // ... and again a period later
  EXPECT_EQ(observer_.reconcileCount(), 0u);
  EXPECT_FALSE(loop_.leadingSince());

  const Time leadingAt = clock_.now();
  loop_.startedLeading();
  EXPECT_EQ(loop_.leadingSince(), leadingAt);
  ASSERT_TRUE(reconciledTimes(1));
  const auto first = observer_.reconciled().front();
  EXPECT_EQ(first.key, kKey);
  EXPECT_EQ(first.at, leadingAt);  // at once, not a period later
  EXPECT_TRUE(first.leading);

  loop_.stoppedLeading();
  EXPECT_FALSE(loop_.leadingSince());
  step(kSyncPeriod);
  step(kSyncPeriod);
  EXPECT_EQ(observer_.reconcileCount(), 1u);
  for (const auto& r : observer_.reconciled())
    EXPECT_TRUE(r.leading) << "reconciled at " << formatRFC3339(r.at);
}

TEST_F(RunLoopTest, ReconcilesAgainEverySyncPeriod) {
  serveHpa();
  start();
  loop_.startedLeading();
  ASSERT_TRUE(reconciledTimes(1));
  const Time first = observer_.reconciled()[0].at;

  step(kSyncPeriod - seconds(1));
  EXPECT_EQ(observer_.reconcileCount(), 1u) << "reconciled before the sync period";
  step(seconds(1));
  ASSERT_TRUE(reconciledTimes(2));
  EXPECT_EQ(observer_.reconciled()[1].at, first + kSyncPeriod);

  step(kSyncPeriod);
  ASSERT_TRUE(reconciledTimes(3));
  EXPECT_EQ(observer_.reconciled()[2].at, first + 2 * kSyncPeriod);
}

TEST_F(RunLoopTest, TheHpasOwnSyncPeriodSetsItsInterval) {
  hpa_.metadata.annotations[kSyncPeriodAnnotation] = "5s";
  serveHpa();
  start();
  loop_.startedLeading();
  ASSERT_TRUE(reconciledTimes(1));
  const Time first = observer_.reconciled()[0].at;

  step(seconds(4));
  EXPECT_EQ(observer_.reconcileCount(), 1u);
  step(seconds(1));
  ASSERT_TRUE(reconciledTimes(2));
  EXPECT_EQ(observer_.reconciled()[1].at, first + seconds(5));
  step(seconds(5));
  ASSERT_TRUE(reconciledTimes(3));
  EXPECT_EQ(observer_.reconciled()[2].at, first + seconds(10));
}

TEST_F(RunLoopTest, ASpecChangeIsActedOnAtOnce) {
  serveHpa();
  start();
  loop_.startedLeading();
  ASSERT_TRUE(reconciledTimes(1));
  step(seconds(5));

  hpa_.spec.maxReplicas = 12;
  serveHpa();
  ASSERT_TRUE(reconciledTimes(2));
  EXPECT_EQ(observer_.reconciled()[1].at, observer_.reconciled()[0].at + seconds(5));
}

TEST_F(RunLoopTest, ADeletedHpaIsForgotten) {
  serveHpa();
  start();
  loop_.startedLeading();
  ASSERT_TRUE(reconciledTimes(1));
  ASSERT_TRUE(eventually([&] { return persister_.offered().count(kKey) == 1; }));
  EXPECT_TRUE(controller_.history().get(kKey));

  source_.removeObject(kKey);
  // Reported by the informer's handler and again by the reconcile that finds it gone.
  ASSERT_TRUE(eventually([&] { return observer_.deleted().size() == 2; }));
  EXPECT_EQ(observer_.deleted(), (std::vector<std::string>{kKey, kKey}));
  EXPECT_EQ(observer_.hpaCount(), 0);
  EXPECT_EQ(persister_.forgotten(), std::vector<std::string>{kKey});
  EXPECT_FALSE(controller_.history().get(kKey));

  // The requeue that was waiting when the HPA went finds it gone once more; nothing after that.
  step(kSyncPeriod);
  ASSERT_TRUE(eventually([&] { return observer_.deleted().size() == 3; }));
  step(kSyncPeriod);
  step(kSyncPeriod);
  EXPECT_EQ(observer_.deleted().size(), 3u);
  EXPECT_EQ(observer_.reconcileCount(), 1u);
}

TEST_F(RunLoopTest, AStaleCacheSkipsTheReconcile) {
  serveHpa();                           // resourceVersion 101
  stalenessGuard_.record(kKey, "200");  // our own status write the cache has not seen yet
  start();
  loop_.startedLeading();
  ASSERT_TRUE(eventually([&] { return observer_.staleSkips() == 1; }));
  EXPECT_EQ(observer_.reconcileCount(), 0u);

  ASSERT_TRUE(eventually([&] { return source_.openWatches() == 1; }));
  {
    std::lock_guard<std::mutex> lock(source_.mu_);
    source_.rv_ = 199;
  }
  source_.bookmark();  // the cache reaches version 200
  ASSERT_TRUE(eventually([&] { return hpas_.lastResourceVersion() == "200"; }));
  step(kSyncPeriod);
  ASSERT_TRUE(reconciledTimes(1));
  EXPECT_EQ(observer_.staleSkips(), 1);
}

// After an apiserver restart the HPA cache trails our own status writes for a while: a reconcile
// skipped for it runs as soon as the HPA's next event shows the cache caught up, not a sync
// period later.
TEST_F(RunLoopTest, AReconcileSkippedForAStaleCacheRunsWhenTheCacheCatchesUp) {
  serveHpa();                           // resourceVersion 101
  stalenessGuard_.record(kKey, "102");  // our own status write the cache has not seen yet
  start();
  loop_.startedLeading();
  ASSERT_TRUE(eventually([&] { return observer_.staleSkips() == 1; }));
  ASSERT_TRUE(eventually([&] { return loop_.queueDepth() == 0 && loop_.keysInFlight() == 0; }));
  EXPECT_EQ(observer_.reconcileCount(), 0u);

  hpa_.status.currentReplicas = 3;
  serveHpa();  // the status we wrote reaches the cache as version 102, with no clock step
  ASSERT_TRUE(reconciledTimes(1));
  EXPECT_EQ(observer_.staleSkips(), 1);

  // Later events wait for the sync period again.
  hpa_.status.currentReplicas = 4;
  serveHpa();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(observer_.reconcileCount(), 1u);
  step(kSyncPeriod);
  ASSERT_TRUE(reconciledTimes(2));
}

TEST_F(RunLoopTest, LeadershipRestoresThePersistedHistoryBeforeTheFirstReconcile) {
  // A predecessor recommended 7 replicas a minute ago. Restored after the first reconcile, it
  // would be ignored (the controller's own history, seeded from the current 3, would exist).
  api::AutoscalerHistory persisted;
  persisted.recommendations = {{7, clock_.now() - minutes(1)}};
  hpa_.metadata.annotations[kHistoryAnnotation] = api::encodeAutoscalerHistory(persisted).dump();
  serveHpa();
  start();
  loop_.startedLeading();
  ASSERT_TRUE(reconciledTimes(1));
  ASSERT_TRUE(eventually([&] { return persister_.offered().count(kKey) == 1; }));
  const auto offered = persister_.offered().at(kKey);
  ASSERT_FALSE(offered.recommendations.empty());
  EXPECT_EQ(offered.recommendations.front().replicas, 7);
  EXPECT_EQ(offered.recommendations.front().timestamp, clock_.now());  // restored as current
}

TEST_F(RunLoopTest, ShutDownWhileLeadingFlushesTheHistories) {
  serveHpa();
  start();
  loop_.startedLeading();
  ASSERT_TRUE(reconciledTimes(1));
  hpas_.stop();
  loop_.shutDown();
  EXPECT_EQ(persister_.flushes(), 1);
  EXPECT_FALSE(loop_.leading());
  EXPECT_FALSE(loop_.leadingSince());  // no term goes on past the shutdown
}

TEST_F(RunLoopTest, ShutDownOfAStandbyFlushesNothing) {
  serveHpa();
  start();
  hpas_.stop();
  loop_.shutDown();
  EXPECT_EQ(persister_.flushes(), 0);
}

// The workers carry names an operator (top -H, gdb) and the in-cluster liveness test (which
// freezes them alone) can find them by.
TEST_F(RunLoopTest, TheWorkersAreNamedReconcile) {
  start();
  auto named = [] {
    int count = 0;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
      std::ifstream comm(task.path() / "comm");
      std::string name;
      std::getline(comm, name);
      if (name.rfind("reconcile-", 0) == 0) ++count;
    }
    return count;
  };
  // A worker names itself once it runs, which may be after start() returns.
  ASSERT_TRUE(eventually([&] { return named() == 1; })) << named() << " workers named";
  EXPECT_EQ(named(), 1);  // the fixture runs one worker, and no other thread takes its name
}

TEST_F(RunLoopTest, EverySyncPeriodRunsOncePerPeriod) {
  start();
  EXPECT_EQ(syncPeriods_.load(), 0);
  step(kSyncPeriod - seconds(1));
  EXPECT_EQ(syncPeriods_.load(), 0);
  step(seconds(1));
  ASSERT_TRUE(eventually([&] { return syncPeriods_.load() == 1; }));
  step(kSyncPeriod);
  ASSERT_TRUE(eventually([&] { return syncPeriods_.load() == 2; }));
  step(kSyncPeriod / 2);
  EXPECT_EQ(syncPeriods_.load(), 2);
}

}  // namespace
}  // namespace hpa::controller
