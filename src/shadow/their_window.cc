#include "shadow/their_window.h"

namespace hpa::shadow {

void TheirWindow::observed(Time at, std::optional<std::int32_t> proposal, bool itsFirstDecision) {
  if (!segments_.empty() && at < segments_.back().from) return;  // out of order: keep what we have
  if (proposal && *proposal < 0) proposal.reset();  // no proposal, whatever computed it
  segments_.push_back({at, proposal});
  if (!first_) {
    first_ = at;
    knownFromItsStart_ = itsFirstDecision;
  }
}

void TheirWindow::startedAt(Time at, std::int32_t currentReplicas) {
  if (first_ || initial_ || currentReplicas < 0) return;  // it started before we followed it
  initial_ = api::TimestampedRecommendation{currentReplicas, at};
}

std::vector<api::TimestampedRecommendation> TheirWindow::recommendationsAt(Time at, Duration keep) {
  const Time oldest = at - keep;
  if (initial_ && initial_->timestamp <= oldest) initial_.reset();
  // A segment that ended before the window began is gone for good.
  while (segments_.size() > 1 && segments_[1].from <= oldest) segments_.pop_front();
  std::vector<api::TimestampedRecommendation> out;
  if (initial_) out.push_back(*initial_);
  if (syncPeriod_ <= Duration::zero()) return out;
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const auto& s = segments_[i];
    if (!s.proposal) continue;
    const Time end = i + 1 < segments_.size() ? segments_[i + 1].from : at;
    // The write's own sync, then one each period after it; a sync due less than half a period
    // before the next write is that write (its syncs run late, not early).
    if (s.from > oldest && s.from < end) out.push_back({*s.proposal, s.from});
    Time t = s.from + syncPeriod_;
    if (t < oldest) t += ((oldest - t) / syncPeriod_) * syncPeriod_;
    for (; t + syncPeriod_ / 2 < end; t += syncPeriod_) {
      if (t > oldest) out.push_back({*s.proposal, t});
    }
  }
  return out;
}

std::optional<Time> TheirWindow::since() const { return first_; }

}  // namespace hpa::shadow
