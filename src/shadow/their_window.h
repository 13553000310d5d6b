#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "api/history.h"
#include "common/time.h"

namespace hpa::shadow {

// The other controller's stabilization window for one HPA, as its status writes show it. At each
// sync it records its metrics' proposal; it writes the status only when the status changed, so
// between two writes it recorded the same proposal once per sync period, at the phase of the
// first (a sync that comes late is the next write). Following its writes gives its recommendations
// at its own instants, where the shadow's own reconciles record theirs up to a period apart from
// different metric reads.
class TheirWindow {
 public:
  explicit TheirWindow(Duration syncPeriod) : syncPeriod_(syncPeriod) {}

  // Its decision at `at` proposed `proposal` (nullopt: its metrics failed, it recorded nothing).
  // `itsFirstDecision`: the status it replaced was never written, so it held nothing before this
  // one but the size it started from (startedAt).
  void observed(Time at, std::optional<std::int32_t> proposal, bool itsFirstDecision = false);
  // Its first reconcile ever read `currentReplicas` from the target's scale at `at`: it starts its
  // window from that size (so its first stabilization window never scales below it), whatever its
  // metrics then gave. Call before asking for the recommendations of that first decision.
  void startedAt(Time at, std::int32_t currentReplicas);
  // The recommendations it held when deciding at `at` (before recording that decision's), those
  // younger than `keep`; older ones are dropped.
  std::vector<api::TimestampedRecommendation> recommendationsAt(Time at, Duration keep);
  // When its first decision was observed: before that its window is not known.
  std::optional<Time> since() const;
  // Whether the first decision observed was its first ever: then its whole window is known.
  bool knownFromItsStart() const { return knownFromItsStart_; }

 private:
  struct Segment {
    Time from;
    std::optional<std::int32_t> proposal;
  };
  Duration syncPeriod_;
  std::deque<Segment> segments_;
  std::optional<Time> first_;
  std::optional<api::TimestampedRecommendation> initial_;
  bool knownFromItsStart_ = false;
};

}  // namespace hpa::shadow
