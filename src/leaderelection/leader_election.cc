#include "leaderelection/leader_election.h"

#include <fmt/format.h>

#include "common/json_value.h"
#include "kube/rest_list_watch.h"

namespace hpa::leaderelection {
namespace {

// Server-side timeout of a Lease watch; it is reopened when it ends.
constexpr int kLeaseWatchTimeoutSeconds = 300;
// Reopening a failing watch backs off up to this (e.g. RBAC without `watch` on the Lease).
constexpr auto kMaxWatchBackoff = std::chrono::seconds(30);
// A watch that ends sooner than this is treated as failing (no tight reopen loop).
constexpr auto kShortestHealthyWatch = std::chrono::seconds(1);

std::optional<Time> timeField(const nlohmann::json& spec, const char* name) {
  if (!spec.contains(name) || !spec[name].is_string()) return std::nullopt;
  auto t = parseRFC3339(spec[name].get<std::string>());
  return t.ok() ? std::optional<Time>(*t) : std::nullopt;
}

nlohmann::json leaseJson(const std::string& ns, const std::string& name, const LeaseRecord& r) {
  nlohmann::json spec{{"holderIdentity", r.holderIdentity},
                      {"leaseDurationSeconds", r.leaseDurationSeconds},
                      {"leaseTransitions", r.leaseTransitions}};
  if (r.acquireTime) spec["acquireTime"] = formatRFC3339Micro(*r.acquireTime);
  if (r.renewTime) spec["renewTime"] = formatRFC3339Micro(*r.renewTime);
  nlohmann::json meta{{"name", name}, {"namespace", ns}};
  if (!r.resourceVersion.empty()) meta["resourceVersion"] = r.resourceVersion;
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", meta},
          {"spec", spec}};
}

LeaseRecord leaseFromJson(const nlohmann::json& lease) {
  LeaseRecord r;
  if (!lease.is_object()) return r;
  const auto spec = lease.value("spec", nlohmann::json::object());
  if (!spec.is_object()) return r;
  if (spec.contains("holderIdentity") && spec["holderIdentity"].is_string())
    r.holderIdentity = spec["holderIdentity"];
  if (spec.contains("leaseDurationSeconds") && spec["leaseDurationSeconds"].is_number_integer()) {
    r.leaseDurationSeconds = spec["leaseDurationSeconds"];
  }
  if (spec.contains("leaseTransitions") && spec["leaseTransitions"].is_number_integer()) {
    r.leaseTransitions = spec["leaseTransitions"];
  }
  r.acquireTime = timeField(spec, "acquireTime");
  r.renewTime = timeField(spec, "renewTime");
  const auto meta = lease.value("metadata", nlohmann::json::object());
  if (meta.is_object() && meta.contains("resourceVersion") && meta["resourceVersion"].is_string()) {
    r.resourceVersion = meta["resourceVersion"];
  }
  return r;
}

class ApiLeaseWatch final : public LeaseWatch {
 public:
  explicit ApiLeaseWatch(std::unique_ptr<api::WatchStream> stream) : stream_(std::move(stream)) {}
  Result<std::optional<LeaseRecord>> next() override {
    while (true) {
      auto event = stream_->next();
      if (!event.ok()) return event.error();
      if (!*event) return std::optional<LeaseRecord>();
      switch ((*event)->type) {
        case api::WatchEventType::Added:
        case api::WatchEventType::Modified:
          return std::optional<LeaseRecord>(leaseFromJson((*event)->object));
        case api::WatchEventType::Deleted:
          return std::optional<LeaseRecord>(LeaseRecord{});
        case api::WatchEventType::Bookmark:
          continue;
        case api::WatchEventType::Error:
          return Error::format("lease watch: {}",
                               stringValue((*event)->object, "message", "error event"));
      }
    }
  }
  void stop() override { stream_->stop(); }

 private:
  std::unique_ptr<api::WatchStream> stream_;
};

}  // namespace

Result<std::optional<LeaseRecord>> ApiLeaseStore::get() {
  auto lease =
      client_.get(fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", ns_, name_));
  if (!lease.ok()) {
    if (lease.error().httpCode == 404) return std::optional<LeaseRecord>();
    return lease.error();
  }
  return std::optional<LeaseRecord>(leaseFromJson(*lease));
}

Result<std::unique_ptr<LeaseWatch>> ApiLeaseStore::watch() {
  auto stream = client_.watch(
      fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/"
                  "leases?fieldSelector={}&watch=true&timeoutSeconds={}",
                  ns_, kube::urlEncode("metadata.name=" + name_), kLeaseWatchTimeoutSeconds));
  if (!stream.ok()) return stream.error();
  return std::unique_ptr<LeaseWatch>(std::make_unique<ApiLeaseWatch>(std::move(*stream)));
}

Status ApiLeaseStore::create(const LeaseRecord& record) {
  nlohmann::json body = leaseJson(ns_, name_, record);
  auto r = client_.send(
      "POST", fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases", ns_), &body);
  if (!r.ok()) return r.error();
  return Status();
}

Status ApiLeaseStore::update(const LeaseRecord& record) {
  nlohmann::json body = leaseJson(ns_, name_, record);
  auto r = client_.send(
      "PUT", fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", ns_, name_),
      &body);
  if (!r.ok()) return r.error();
  return Status();
}

LeaderElector::LeaderElector(LeaseStore& store, LeaderElectionConfig config, Clock& clock,
                             Logger logger, std::function<void()> onStartedLeading,
                             std::function<void()> onStoppedLeading)
    : store_(store),
      config_(std::move(config)),
      clock_(clock),
      logger_(std::move(logger)),
      onStartedLeading_(std::move(onStartedLeading)),
      onStoppedLeading_(std::move(onStoppedLeading)) {}

LeaderElector::~LeaderElector() { stop(); }

void LeaderElector::start() {
  thread_ = std::thread([this] { run(); });
  watcher_ = std::thread([this] { watchForRelease(); });
}

void LeaderElector::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !thread_.joinable() && !watcher_.joinable()) return;
    stopping_ = true;
    if (activeWatch_) activeWatch_->stop();
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (watcher_.joinable()) watcher_.join();
  if (guard_.joinable()) guard_.join();
}

bool LeaderElector::isLeader() const {
  return leading_.load() && clock_.now().time_since_epoch().count() < deadline_.load();
}

bool LeaderElector::extendDeadline(Time renewalStart) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ended_) return false;
    deadline_ = (renewalStart + config_.renewDeadline).time_since_epoch().count();
  }
  cv_.notify_all();
  return true;
}

void LeaderElector::loseLeadership() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ended_.exchange(true)) return;
  }
  cv_.notify_all();
  logger_.error("failed to renew lease within the renew deadline: leadership lost", "identity",
                config_.identity);
  leading_ = false;
  onStoppedLeading_();
}

void LeaderElector::guardDeadline() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_ && !ended_) {
    const Time deadline{Duration(deadline_.load())};
    if (clock_.now() >= deadline) {
      lock.unlock();
      loseLeadership();
      return;
    }
    clock_.waitUntil(cv_, lock, deadline);
  }
}

bool LeaderElector::sleep(Duration d, bool wakeOnRelease) {
  std::unique_lock<std::mutex> lock(mu_);
  const Time deadline = clock_.now() + d;
  while (!stopping_ && !(wakeOnRelease && releaseSeen_) && clock_.now() < deadline) {
    clock_.waitUntil(cv_, lock, deadline);
  }
  if (wakeOnRelease) releaseSeen_ = false;
  return !stopping_;
}

void LeaderElector::watchForRelease() {
  Duration backoff = config_.retryPeriod;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_ || leading_) return;
    }
    const Time opened = clock_.now();
    auto watch = store_.watch();
    bool failed = !watch.ok();
    if (watch.ok()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_ || leading_) return;
        activeWatch_ = watch->get();
      }
      logger_.v(2, "watching the lease to take it as soon as it is released");
      while (true) {
        auto change = (*watch)->next();
        if (!change.ok()) {
          logger_.v(2, "lease watch failed", "err", change.error().message);
          failed = true;
          break;
        }
        if (!*change) break;
        if (!(*change)->resourceVersion.empty()) sawTransitions(**change);  // not a deletion
        if ((*change)->holderIdentity.empty()) {
          logger_.v(2, "lease released by its holder: trying to acquire it now");
          std::lock_guard<std::mutex> lock(mu_);
          releaseSeen_ = true;
          cv_.notify_all();
        }
      }
      std::lock_guard<std::mutex> lock(mu_);
      activeWatch_ = nullptr;
    } else {
      logger_.v(2, "cannot watch the lease; polling it every retry period", "err",
                watch.error().message);
    }
    {
      // A watch the new leader stopped: nothing left to watch for, and no reason to keep a
      // thread parked on the clock for a backoff.
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_ || leading_) return;
    }
    if (failed || clock_.now() - opened < kShortestHealthyWatch) {
      if (!sleep(backoff)) return;
      backoff = std::min<Duration>(backoff * 2, kMaxWatchBackoff);
    } else {
      backoff = config_.retryPeriod;
    }
  }
}

bool LeaderElector::tryAcquireOrRenew() {
  const Time now = clock_.now();
  const int durationSeconds = static_cast<int>(
      std::chrono::duration_cast<std::chrono::seconds>(config_.leaseDuration).count());
  auto current = store_.get();
  if (!current.ok()) {
    logger_.error("error retrieving lease", "err", current.error().message);
    return false;
  }
  if (!*current) {
    LeaseRecord fresh{config_.identity, durationSeconds, now, now, 0, ""};
    if (auto s = store_.create(fresh); !s.ok()) {
      logger_.error("error creating lease", "err", s.error().message);
      return false;
    }
    observe(fresh, now);
    sawTransitions(fresh);
    lastRenewal_ = now.time_since_epoch().count();
    return true;
  }
  LeaseRecord record = **current;
  sawTransitions(record);
  // Expiry is judged from when *we* saw the record change, not from its renewTime.
  if (!observed_ || !(observed_->holderIdentity == record.holderIdentity &&
                      observed_->renewTime == record.renewTime &&
                      observed_->resourceVersion == record.resourceVersion)) {
    observe(record, now);
  }
  const bool heldByOther =
      !record.holderIdentity.empty() && record.holderIdentity != config_.identity;
  const Duration recordDuration = std::chrono::seconds(record.leaseDurationSeconds);
  if (heldByOther && now < observedAt_ + recordDuration) return false;

  LeaseRecord next = record;
  next.holderIdentity = config_.identity;
  next.leaseDurationSeconds = durationSeconds;
  next.renewTime = now;
  if (record.holderIdentity != config_.identity) {
    next.acquireTime = now;
    next.leaseTransitions = record.leaseTransitions + 1;
  }
  if (auto s = store_.update(next); !s.ok()) {
    logger_.v(2, "lease update failed", "err", s.error().message);
    return false;
  }
  observe(next, now);
  sawTransitions(next);
  lastRenewal_ = now.time_since_epoch().count();
  return true;
}

void LeaderElector::observe(const LeaseRecord& record, Time at) {
  observed_ = record;
  observedAt_ = at;
  holding_ = record.holderIdentity == config_.identity;
}

Status LeaderElector::check(Duration maxTolerableExpiredLease) const {
  if (!holding_) return Status();
  const auto renewed = lastRenewal();
  if (!renewed) return Status();
  const Duration since = clock_.now() - *renewed;
  const Duration limit = config_.leaseDuration + maxTolerableExpiredLease;
  if (since <= limit) return Status();
  return Error::format(
      "failed election to renew leadership on the lease: last renewed {} ago (limit {})",
      formatGoDuration(since), formatGoDuration(limit));
}

std::optional<Time> LeaderElector::lastRenewal() const {
  const Time::rep renewed = lastRenewal_.load();
  if (renewed == kNever) return std::nullopt;
  return Time(Duration(renewed));
}

std::optional<int> LeaderElector::leaseTransitions() const {
  const int transitions = leaseTransitions_.load();
  if (transitions == kUnseen) return std::nullopt;
  return transitions;
}

void LeaderElector::release() {
  if (!observed_ || observed_->holderIdentity != config_.identity) return;
  LeaseRecord released = *observed_;
  released.holderIdentity.clear();
  released.leaseDurationSeconds = 1;
  released.renewTime = clock_.now();
  // The stored resourceVersion moved on with our last renewal; read it back first (and never
  // clear a Lease someone else holds by now).
  if (auto current = store_.get(); current.ok() && *current) {
    if ((*current)->holderIdentity != config_.identity) return;
    released.resourceVersion = (*current)->resourceVersion;
  }
  if (auto s = store_.update(released); !s.ok()) {
    logger_.error("failed to release lease", "err", s.error().message);
    return;
  }
  holding_ = false;
  logger_.info("released the lease", "identity", config_.identity);
}

void LeaderElector::run() {
  logger_.info("attempting to acquire leader lease", "identity", config_.identity);
  Time attempt = clock_.now();
  while (!tryAcquireOrRenew()) {
    if (!sleep(config_.retryPeriod, /*wakeOnRelease=*/true)) return;
    attempt = clock_.now();
  }
  logger_.info("successfully acquired lease", "identity", config_.identity);
  extendDeadline(attempt);
  leading_ = true;
  {
    // A leader renews; it has no use for the watch.
    std::lock_guard<std::mutex> lock(mu_);
    if (activeWatch_) activeWatch_->stop();
  }
  cv_.notify_all();
  guard_ = std::thread([this] { guardDeadline(); });
  onStartedLeading_();
  // The deadline counts from the start of the last renewal that succeeded: the Lease's renewTime
  // is that instant or later on the server, so a standby cannot take it before renewDeadline plus
  // the margin to leaseDuration has passed.
  while (sleep(config_.retryPeriod)) {
    if (ended_) return;
    attempt = clock_.now();
    if (tryAcquireOrRenew()) {
      if (!extendDeadline(attempt)) return;
      continue;
    }
    if (!isLeader()) {
      loseLeadership();
      return;
    }
  }
  // Stopping: the guard has not ended leadership (it stops first), so this ends it, once.
  if (ended_.exchange(true)) return;
  leading_ = false;
  onStoppedLeading_();
  release();
}

}  // namespace hpa::leaderelection
