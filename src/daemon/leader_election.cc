#include "daemon/leader_election.h"

#include <fmt/format.h>

namespace hpa::daemon {
namespace {

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
  return {{"apiVersion", "coordination.k8s.io/v1"}, {"kind", "Lease"}, {"metadata", meta}, {"spec", spec}};
}

}  // namespace

Result<std::optional<LeaseRecord>> ApiLeaseStore::get() {
  auto lease = client_.get(fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", ns_, name_));
  if (!lease.ok()) {
    if (lease.error().httpCode == 404) return std::optional<LeaseRecord>();
    return lease.error();
  }
  LeaseRecord r;
  const auto spec = lease->value("spec", nlohmann::json::object());
  r.holderIdentity = spec.value("holderIdentity", "");
  r.leaseDurationSeconds = spec.value("leaseDurationSeconds", 0);
  r.leaseTransitions = spec.value("leaseTransitions", 0);
  r.acquireTime = timeField(spec, "acquireTime");
  r.renewTime = timeField(spec, "renewTime");
  r.resourceVersion = (*lease)["metadata"].value("resourceVersion", "");
  return std::optional<LeaseRecord>(r);
}

Status ApiLeaseStore::create(const LeaseRecord& record) {
  nlohmann::json body = leaseJson(ns_, name_, record);
  auto r = client_.send("POST", fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases", ns_), &body);
  if (!r.ok()) return r.error();
  return Status();
}

Status ApiLeaseStore::update(const LeaseRecord& record) {
  nlohmann::json body = leaseJson(ns_, name_, record);
  auto r = client_.send("PUT", fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", ns_, name_), &body);
  if (!r.ok()) return r.error();
  return Status();
}

LeaderElector::LeaderElector(LeaseStore& store, LeaderElectionConfig config, Clock& clock, Logger logger,
                             std::function<void()> onStartedLeading, std::function<void()> onStoppedLeading)
    : store_(store),
      config_(std::move(config)),
      clock_(clock),
      logger_(std::move(logger)),
      onStartedLeading_(std::move(onStartedLeading)),
      onStoppedLeading_(std::move(onStoppedLeading)) {}

LeaderElector::~LeaderElector() { stop(); }

void LeaderElector::start() { thread_ = std::thread([this] { run(); }); }

void LeaderElector::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool LeaderElector::sleep(Duration d) {
  std::unique_lock<std::mutex> lock(mu_);
  const Time deadline = clock_.now() + d;
  while (!stopping_ && clock_.now() < deadline) clock_.waitUntil(cv_, lock, deadline);
  return !stopping_;
}

bool LeaderElector::tryAcquireOrRenew() {
  const Time now = clock_.now();
  const int durationSeconds =
      static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(config_.leaseDuration).count());
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
    observed_ = fresh;
    observedAt_ = now;
    return true;
  }
  LeaseRecord record = **current;
  // Expiry is judged from when *we* saw the record change, not from its renewTime.
  if (!observed_ || !(observed_->holderIdentity == record.holderIdentity && observed_->renewTime == record.renewTime &&
                      observed_->resourceVersion == record.resourceVersion)) {
    observed_ = record;
    observedAt_ = now;
  }
  const bool heldByOther = !record.holderIdentity.empty() && record.holderIdentity != config_.identity;
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
  observed_ = next;
  observedAt_ = now;
  return true;
}

void LeaderElector::release() {
  if (!observed_ || observed_->holderIdentity != config_.identity) return;
  LeaseRecord released = *observed_;
  released.holderIdentity.clear();
  released.leaseDurationSeconds = 1;
  released.renewTime = clock_.now();
  // The stored resourceVersion moved on with our last renewal; read it back first.
  if (auto current = store_.get(); current.ok() && *current) released.resourceVersion = (*current)->resourceVersion;
  if (auto s = store_.update(released); !s.ok()) logger_.error("failed to release lease", "err", s.error().message);
}

void LeaderElector::run() {
  logger_.info("attempting to acquire leader lease", "identity", config_.identity);
  while (!tryAcquireOrRenew()) {
    if (!sleep(config_.retryPeriod)) return;
  }
  logger_.info("successfully acquired lease", "identity", config_.identity);
  leading_ = true;
  onStartedLeading_();
  Time lastRenew = clock_.now();
  while (sleep(config_.retryPeriod)) {
    if (tryAcquireOrRenew()) {
      lastRenew = clock_.now();
      continue;
    }
    if (clock_.now() - lastRenew >= config_.renewDeadline) {
      logger_.error("failed to renew lease within the renew deadline: leadership lost", "identity", config_.identity);
      leading_ = false;
      onStoppedLeading_();
      return;
    }
  }
  leading_ = false;
  onStoppedLeading_();
  release();
}

}  // namespace hpa::daemon
