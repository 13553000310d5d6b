#pragma once

#include <cstdint>
#include <string>

#include "report/reconcile_report.h"

namespace hpa::report {

// A reconcile's outcome in a few words: the daemon's one log line per decision and the rows of
// `explain --all` say the same thing.
struct DecisionSummary {
  std::int32_t current = 0;
  // The replica count the target has after this reconcile: the desired count when the
  // controller rescales, else the current one (a failed metric keeps the size; it never means 0).
  std::int32_t next = 0;
  bool rescale = false;
  std::string metric;  // the metric that decided, or the one that failed
  // Upstream's rescale reason when rescaling; otherwise why not: "within tolerance",
  // "ScaleDownStabilized", "ScaleUpLimit", "TooManyReplicas (max 10)", "paused (would scale to
  // 8)", "scale-down paused (would scale to 2: ...)", the failing metric's
  // condition reason and error, FailedGetScale with its error, ...
  std::string why;
};

DecisionSummary summarize(const ReconcileReport& report);

// The word the daemon's log line gives a decision: "rescaled", "paused" (decided, and the scale
// left alone by hpa-controller.io/paused, in both directions or in the one it holds), or
// "decided".
const char* verdictOf(const ReconcileReport& report);

}  // namespace hpa::report
