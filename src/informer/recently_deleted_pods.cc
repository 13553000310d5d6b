#include "informer/recently_deleted_pods.h"

#include "api/meta.h"

namespace hpa::informer {

RecentlyDeletedPods::RecentlyDeletedPods(const Clock& clock, Duration keep)
    : clock_(clock), keep_(keep) {}

EventHandlers<api::Pod> RecentlyDeletedPods::handlers() {
  using Ptr = std::shared_ptr<const api::Pod>;
  return {[this](const Ptr& pod) { added(*pod); }, nullptr,
          [this](const Ptr& pod) { deleted(*pod); }};
}

void RecentlyDeletedPods::deleted(const api::Pod& pod) {
  const Time now = clock_.now();
  std::string key = api::objectKey(pod.namespace_, pod.name);
  std::lock_guard<std::mutex> lock(mu_);
  pruneLocked(now);
  byKey_[key] = Gone{pod.labels, now};
  byTime_.emplace_back(now, std::move(key));
}

void RecentlyDeletedPods::added(const api::Pod& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  byKey_.erase(api::objectKey(pod.namespace_, pod.name));
}

std::optional<api::Labels> RecentlyDeletedPods::labelsOf(const std::string& ns,
                                                         const std::string& name) const {
  const Time now = clock_.now();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = byKey_.find(api::objectKey(ns, name));
  if (it == byKey_.end() || it->second.at + keep_ < now) return std::nullopt;
  return it->second.labels;
}

std::size_t RecentlyDeletedPods::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return byKey_.size();
}

void RecentlyDeletedPods::pruneLocked(Time now) {
  while (!byTime_.empty() && byTime_.front().first + keep_ < now) {
    auto it = byKey_.find(byTime_.front().second);
    // A later deletion of the same name has its own, younger entry in the queue.
    if (it != byKey_.end() && it->second.at == byTime_.front().first) byKey_.erase(it);
    byTime_.pop_front();
  }
}

}  // namespace hpa::informer
