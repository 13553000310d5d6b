#include "controls/schedule_cache.h"

namespace hpa::controls {

std::shared_ptr<const ScheduleCache::Parsed> ScheduleCache::get(const std::string& key,
                                                                std::string_view text) {
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.text == text) return it->second.parsed;
  }
  // Parsed outside the lock: another HPA's reconcile need not wait for it.
  auto parsed = std::make_shared<const Parsed>(parseSchedule(text));
  std::lock_guard lock(mu_);
  entries_.insert_or_assign(key, Entry{std::string(text), parsed});
  return parsed;
}

void ScheduleCache::erase(const std::string& key) {
  std::lock_guard lock(mu_);
  entries_.erase(key);
}

std::size_t ScheduleCache::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace hpa::controls
