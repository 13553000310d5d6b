#include "sim/pod_lifecycle.h"

#include "api/meta.h"
#include "sim/cluster.h"

namespace hpa::sim {
namespace {

constexpr Duration kStaleCacheRecheck = std::chrono::seconds(1);

// A failed write is retried after 100 ms, doubling up to 10 s: quick enough that a burst of
// throttled or conflicting writes does not hold a pod back long, slow enough not to hammer.
constexpr Duration kRetryBase = std::chrono::milliseconds(100);
constexpr Duration kRetryMax = std::chrono::seconds(10);
constexpr int kHttpNotFound = 404;
constexpr int kHttpConflict = 409;

// Whether the metrics APIs would see a difference between the two.
bool sameForMetrics(const ObservedPod& a, const ObservedPod& b) {
  return a.labels == b.labels && a.ready == b.ready && a.containers == b.containers &&
         a.deletionTimestamp.has_value() == b.deletionTimestamp.has_value();
}

}  // namespace

PodLifecycle::PodLifecycle(kube::RestClient& client, Clock& clock, Logger logger,
                           LifecycleSettings settings, PodIndex& index)
    : client_(client),
      clock_(clock),
      logger_(std::move(logger)),
      settings_(std::move(settings)),
      index_(index),
      queue_(clock, std::make_unique<workqueue::ItemExponentialFailureRateLimiter>(kRetryBase,
                                                                                   kRetryMax)) {
  for (const auto& ns : settings_.namespaces) {
    if (informers_.count(ns)) continue;
    auto source =
        std::make_unique<kube::RestListWatch>(client_, "/api/v1/namespaces/" + ns + "/pods");
    auto informer = std::make_unique<Informer>(
        *source, decodeObservedPod,
        [](const ObservedPod& p) { return std::make_pair(p.namespace_, p.name); }, clock_,
        logger_.child("pods"));
    informer->addHandlers(
        {[this](const Informer::Ptr& p) { observe(nullptr, p); },
         [this](const Informer::Ptr& old, const Informer::Ptr& p) { observe(old, p); },
         [this](const Informer::Ptr& p) { gone(p); }});
    sources_[ns] = std::move(source);
    informers_[ns] = std::move(informer);
  }
}

PodLifecycle::~PodLifecycle() { stop(); }

void PodLifecycle::start() {
  if (started_) return;
  started_ = true;
  for (auto& [ns, informer] : informers_) informer->start();
  for (int i = 0; i < std::max(settings_.workers, 1); ++i)
    workers_.emplace_back([this] { work(); });
}

void PodLifecycle::stop() {
  for (auto& [ns, informer] : informers_) informer->stop();
  queue_.shutDown();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
}

bool PodLifecycle::hasSynced() const {
  for (const auto& [ns, informer] : informers_) {
    if (!informer->hasSynced()) return false;
  }
  return true;
}

void PodLifecycle::observe(const std::shared_ptr<const ObservedPod>& previous,
                           const std::shared_ptr<const ObservedPod>& pod) {
  if (!previous || !sameForMetrics(*previous, *pod)) {
    // A pod being deleted no longer reports metrics, as its containers are stopping.
    if (pod->deletionTimestamp) {
      index_.remove(pod->namespace_, pod->name);
    } else {
      index_.upsert(pod->toSimPod());
    }
  }
  queue_.add(api::objectKey(pod->namespace_, pod->name));
}

void PodLifecycle::gone(const std::shared_ptr<const ObservedPod>& pod) {
  index_.remove(pod->namespace_, pod->name);
  queue_.forget(api::objectKey(pod->namespace_, pod->name));
}

void PodLifecycle::work() {
  while (auto key = queue_.get()) {
    process(*key);
    queue_.done(*key);
  }
}

void PodLifecycle::process(const std::string& key) {
  const auto [ns, name] = api::splitObjectKey(key);
  auto informer = informers_.find(ns);
  std::shared_ptr<const ObservedPod> pod =
      informer == informers_.end() ? nullptr : informer->second->cache().get(key);
  if (!pod) {
    queue_.forget(key);  // deleted meanwhile
    forgetActedOn(key);
    return;
  }
  if (actedOnVersion(key) == pod->resourceVersion) {
    // The watch brings the version our write made, and with it the next step; the late look
    // covers a write the server took as a no-op (no new version, no event).
    queue_.forget(key);
    queue_.addAfter(key, kStaleCacheRecheck);
    return;
  }
  const Time now = clock_.now();
  const PodPlan plan =
      planPod(*pod, now, PodTiming{settings_.startDelay, settings_.readinessDelay});
  if (auto s = execute(*pod, plan); !s.ok()) {
    logger_.error("pod write failed, will retry", "pod", key, "err", s.error().message, "retries",
                  queue_.numRequeues(key));
    queue_.addRateLimited(key);
    return;
  }
  queue_.forget(key);
  if (plan.action != PodPlan::Action::None) rememberActedOn(key, pod->resourceVersion);
  // The recheck is due at a point in time: the write took time, and the clock moved meanwhile.
  if (plan.recheckAfter) queue_.addAfter(key, now + *plan.recheckAfter - clock_.now());
}

std::string PodLifecycle::actedOnVersion(const std::string& key) {
  std::lock_guard<std::mutex> lock(actedOnMu_);
  auto it = actedOn_.find(key);
  return it == actedOn_.end() ? std::string() : it->second;
}

void PodLifecycle::rememberActedOn(const std::string& key, const std::string& resourceVersion) {
  std::lock_guard<std::mutex> lock(actedOnMu_);
  actedOn_[key] = resourceVersion;
}

void PodLifecycle::forgetActedOn(const std::string& key) {
  std::lock_guard<std::mutex> lock(actedOnMu_);
  actedOn_.erase(key);
}

Status PodLifecycle::execute(const ObservedPod& pod, const PodPlan& plan) {
  const std::string base = "/api/v1/namespaces/" + pod.namespace_ + "/pods/" + pod.name;
  switch (plan.action) {
    case PodPlan::Action::None:
      return Status();
    case PodPlan::Action::Delete: {
      nlohmann::json opts{
          {"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"gracePeriodSeconds", 0}};
      auto r = client_.send("DELETE", base, &opts);
      if (!r.ok() && r.error().httpCode != kHttpNotFound) return r.error();
      return Status();
    }
    case PodPlan::Action::Bind: {
      const int node =
          static_cast<int>(nextNode_++ % static_cast<unsigned>(std::max(settings_.nodes, 1)));
      nlohmann::json binding{
          {"apiVersion", "v1"},
          {"kind", "Binding"},
          {"metadata", {{"name", pod.name}, {"namespace", pod.namespace_}}},
          {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", simNodeName(node)}}}};
      auto r = client_.send("POST", base + "/binding", &binding);
      // 409: bound already (our cache was behind); the watch brings the bound pod.
      if (!r.ok() && r.error().httpCode != kHttpNotFound && r.error().httpCode != kHttpConflict)
        return r.error();
      return Status();
    }
    case PodPlan::Action::SetStatus: {
      auto patch = statusPatch(pod, plan, settings_.readinessDelay);
      auto r = client_.send("PATCH", base + "/status", &patch, "application/merge-patch+json");
      if (!r.ok() && r.error().httpCode != kHttpNotFound) return r.error();
      return Status();
    }
  }
  return Status();
}

}  // namespace hpa::sim
