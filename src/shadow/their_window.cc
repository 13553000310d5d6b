#include "shadow/their_window.h"

namespace hpa::shadow {

void TheirWindow::observed(Time at, std::optional<std::int32_t> proposal) {
  if (!segments_.empty() && at < segments_.back().from) return;  // out of order: keep what we have
  segments_.push_back({at, proposal});
  if (!first_) first_ = at;
}

std::vector<api::TimestampedRecommendation> TheirWindow::recommendationsAt(Time at, Duration keep) {
  const Time oldest = at - keep;
  // A segment that ended before the window began is gone for good.
  while (segments_.size() > 1 && segments_[1].from <= oldest) segments_.pop_front();
  std::vector<api::TimestampedRecommendation> out;
  if (syncPeriod_ <= Duration::zero()) return out;
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const auto& s = segments_[i];
    if (!s.proposal) continue;
    const Time end = i + 1 < segments_.size() ? segments_[i + 1].from : at;
    // Its syncs in [from, end): one each period from the write's instant.
    Time t = s.from;
    if (t < oldest) t += ((oldest - t) / syncPeriod_) * syncPeriod_;
    for (; t < end; t += syncPeriod_) {
      if (t > oldest) out.push_back({*s.proposal, t});
    }
  }
  return out;
}

std::optional<Time> TheirWindow::since() const { return first_; }

}  // namespace hpa::shadow
