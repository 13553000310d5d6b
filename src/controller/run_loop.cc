#include "controller/run_loop.h"

#include <fmt/format.h>

#include <utility>

#include "api/meta.h"
#include "common/thread_name.h"
#include "controls/hpa_controls.h"
#include "report/decision_outcome.h"
#include "report/decision_summary.h"
#include "report/last_decision_report.h"
#include "workqueue/rate_limiter.h"

namespace hpa::controller {
namespace {

std::string keyOf(const api::HorizontalPodAutoscaler& hpa) {
  return api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
}

// The HPA's limiter, keeping a pointer to it for the per-HPA intervals.
workqueue::RateLimiterPtr intervalLimiter(Duration syncPeriod,
                                          workqueue::FixedIntervalRateLimiter*& out) {
  auto limiter = std::make_unique<workqueue::FixedIntervalRateLimiter>(syncPeriod);
  out = limiter.get();
  return limiter;
}

}  // namespace

RunLoop::RunLoop(HorizontalController& controller,
                 informer::Informer<api::HorizontalPodAutoscaler>& hpas,
                 HistoryPersister* persister, RunLoopObserver& observer,
                 StalenessGuard& stalenessGuard, Clock& clock, Logger logger,
                 RunLoopSettings settings)
    : controller_(controller),
      hpas_(hpas),
      persister_(persister),
      observer_(observer),
      stalenessGuard_(stalenessGuard),
      clock_(clock),
      logger_(std::move(logger)),
      settings_(std::move(settings)),
      // The HPA's limiter: every requeue waits exactly the sync period (no back-off), the HPA's
      // own when its controls set one.
      queue_(clock, intervalLimiter(settings.syncPeriod, intervals_)),
      watchdog_(clock, settings.workers) {}

RunLoop::~RunLoop() { shutDown(); }

void RunLoop::registerHandlers() {
  hpas_.addHandlers(informer::EventHandlers<api::HorizontalPodAutoscaler>{
      [this](const auto& hpa) {
        const std::string key = keyOf(*hpa);
        if (controller_.hpaAdded(key)) observer_.hpaCountChanged(1);
        if (leading_) restoreHistory(*hpa);
        queue_.add(key);
      },
      [this](const auto& oldHpa, const auto& newHpa) {
        const std::string key = keyOf(*newHpa);
        // A changed spec or control is acted on at once (a new sync period takes effect
        // without waiting out the old one); status writes, other annotation updates and resyncs
        // wait for the sync period.
        bool caughtUp = false;
        {
          std::lock_guard<std::mutex> lock(staleMu_);
          caughtUp = skippedAsStale_.erase(key) > 0;
        }
        if (caughtUp || !(oldHpa->spec == newHpa->spec) ||
            !(controls::parseControls(*oldHpa) == controls::parseControls(*newHpa))) {
          queue_.add(key);
        } else {
          queue_.addRateLimited(key);
        }
      },
      [this](const auto& hpa) {
        const std::string key = keyOf(*hpa);
        controller_.hpaDeleted(key);
        observer_.hpaCountChanged(-1);
        if (persister_) persister_->forget(key);
        stalenessGuard_.forget(key);
        forgetKey(key);
        queue_.add(key);  // the reconcile sees it gone and drops its history
      }});
}

void RunLoop::forgetKey(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(staleMu_);
    skippedAsStale_.erase(key);
  }
  queue_.forget(key);
  intervals_->setInterval(key, std::nullopt);
  if (settings_.decisions) settings_.decisions->forget(key);
  auto [ns, name] = api::splitObjectKey(key);
  observer_.hpaDeleted(ns, name);
}

void RunLoop::publishDecision(const std::string& key, const report::ReconcileReport& report) {
  const auto& controls = report.controls.controls;
  if (!settings_.decisions || !leading_ ||
      !(controls.recordDecision || report.controls.lastDecisionStored))
    return;
  auto hpa = hpas_.cache().get(key);
  if (!hpa) return;
  settings_.decisions->publish(
      *hpa, controls.recordDecision ? report::lastDecisionOf(report) : std::nullopt, clock_.now());
}

void RunLoop::restoreHistory(const api::HorizontalPodAutoscaler& hpa) {
  if (!persister_) return;
  const std::string key = keyOf(hpa);
  if (controller_.history().get(key)) return;
  if (auto history = historyFromAnnotation(hpa, logger_)) {
    const std::size_t recommendations = history->recommendations.size();
    controller_.history().put(key, restoredAt(std::move(*history), clock_.now()));
    logger_.v(2, "restored history", "HPA", key, "recommendations", recommendations);
  }
}

void RunLoop::startWorkers() {
  for (int i = 0; i < settings_.workers; ++i) {
    workers_.emplace_back([this, i] {
      nameThisThread("reconcile-" + std::to_string(i));
      worker(i);
    });
  }
  ticker_ = std::thread([this] {
    nameThisThread("sync-ticker");
    ticker();
  });
}

void RunLoop::startedLeading() {
  // Restore before the first reconcile, so a failover keeps the stabilization window.
  for (const auto& [key, hpa] : hpas_.cache().all()) restoreHistory(*hpa);
  {
    std::lock_guard<std::mutex> lock(termMu_);
    leadingSince_ = clock_.now();
  }
  leading_ = true;
  // A key a worker holds is not added: that worker either reconciles it now or, having found
  // this instance not leading, adds it back itself (worker()).
  for (const auto& [key, hpa] : hpas_.cache().all()) queue_.addIfIdle(key);
  logger_.info("started leading: reconciling", "hpas", hpas_.cache().size());
}

void RunLoop::stoppedLeading() {
  leading_ = false;
  endTerm();
  logger_.info("stopped leading: no more scaling");
}

std::optional<Time> RunLoop::leadingSince() const {
  std::lock_guard<std::mutex> lock(termMu_);
  return leadingSince_;
}

void RunLoop::endTerm() {
  std::lock_guard<std::mutex> lock(termMu_);
  leadingSince_.reset();
}

Status RunLoop::liveness() const {
  if (!leading_) return Status();
  return watchdog_.check(queue_.waitingSince(), queue_.len(), stallThreshold(settings_.syncPeriod));
}

void RunLoop::worker(int index) {
  while (auto key = queue_.get()) {
    const auto hold = watchdog_.took(index, *key);
    if (!leading_) {
      // Not the leader: keep the key cycling so it is there when leadership comes; if it came
      // while this worker held the key, startedLeading() left the key to us.
      requeue(*key);
      if (leading_) queue_.addIfIdle(*key);
      continue;
    }
    if (readsStaleCache(*key)) {
      requeue(*key);
      continue;
    }
    reconcile(*key);
  }
}

void RunLoop::requeue(const std::string& key) {
  queue_.addRateLimited(key);
  queue_.done(key);
}

bool RunLoop::readsStaleCache(const std::string& key) {
  // Upstream's staleness guard: not from a cache older than our own last status write.
  const auto cached = hpas_.cache().get(key);
  const std::string objectVersion = cached ? cached->metadata.resourceVersion : std::string();
  auto writtenVersion =
      stalenessGuard_.staleAgainst(key, hpas_.lastResourceVersion(), objectVersion);
  if (!writtenVersion) return false;
  logger_.v(2, "skipping reconcile from a stale cache", "HPA", key, "err",
            fmt::format("read version: {} is not as new as written version: {} for group resource "
                        "autoscaling/horizontalpodautoscalers",
                        hpas_.lastResourceVersion(), *writtenVersion));
  observer_.staleSkip();
  std::lock_guard<std::mutex> lock(staleMu_);
  skippedAsStale_.insert(key);
  return true;
}

void RunLoop::reconcile(const std::string& key) {
  const Time start = clock_.now();
  auto result = controller_.reconcileKey(key);
  const auto& report = result.report;
  if (result.deleted) {
    stalenessGuard_.forget(key);
    forgetKey(key);
    queue_.done(key);
    return;
  }
  auto [ns, name] = api::splitObjectKey(key);
  observer_.hpaReconciled(ns, name);
  observer_.hpaDecided(ns, name, report::outcomeOf(report, clock_.now()));
  if (!result.status.ok())
    logger_.error("reconcile failed", "HPA", key, "err", result.status.error().message);
  logDecision(key, report);
  logger_.v(4, "reconciled", "HPA", key, "took",
            std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start).count());
  if (persister_ && report.history && (leading_ || handingOver_)) {
    if (auto hpa = hpas_.cache().get(key)) persister_->persist(*hpa, *report.history);
  }
  publishDecision(key, report);
  // The HPA's own sync period, or the global one, from its controls as this reconcile read them.
  intervals_->setInterval(key, report.controls.controls.syncPeriod);
  requeue(key);
  observer_.queueDepth(queue_.len());
}

void RunLoop::logDecision(const std::string& key, const report::ReconcileReport& report) const {
  // A line per rescale at the default level; decisions that change nothing (paused ones
  // included) at -v 2, so a steady cluster of thousands of HPAs does not log thousands of
  // lines per sync period. The line shows the size the target keeps or gets (a failed metric
  // keeps it) and why.
  const int level = report.rescaled ? 0 : 2;
  if (!logger_.enabled(level)) return;
  const auto summary = report::summarize(report);
  logger_.v(level, report::verdictOf(report), "HPA", key, "replicas",
            fmt::format("{} -> {}", summary.current, summary.next), "branch",
            report::branchName(report.branch), "reason", summary.why);
}

void RunLoop::ticker() {
  // Upstream forgets the custom metrics API version every sync period.
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    const Time deadline = clock_.now() + settings_.syncPeriod;
    while (!stopping_ && clock_.now() < deadline) clock_.waitUntil(cv_, lock, deadline);
    if (stopping_) return;
    if (settings_.everySyncPeriod) settings_.everySyncPeriod();
    observer_.queueDepth(queue_.len());
  }
}

void RunLoop::shutDown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  handingOver_ = leading_.load();
  leading_ = false;
  endTerm();
  if (handingOver_) logger_.info("handing over: no new reconciles; finishing those in flight");
  queue_.shutDownWithDrain();
  for (auto& w : workers_) {
    if (w.joinable()) w.join();
  }
  if (ticker_.joinable()) ticker_.join();
  if (handingOver_ && persister_) {
    const int written = persister_->flush();
    logger_.info("handing over: histories persisted", "written", written);
  }
  handingOver_ = false;
}

}  // namespace hpa::controller
