#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/history.h"
#include "api/hpa.h"
#include "common/time.h"
#include "controller/horizontal_controller.h"
#include "replicacalc/decision_rules.h"
#include "report/reconcile_report.h"
#include "shadow/comparison.h"

namespace hpa::shadow {

// Why a comparison came out as it did. Only `Rules` is a difference of the controllers' rules;
// the others are what two correct controllers deciding at different instants produce.
enum class Cause {
  Agree,
  Inputs,  // the other controller read other metric values (or one failed), and its values give its
           // decision
  History,  // the same inputs; a window recorded at the other controller's instants gives its
            // decision
  Warmup,   // observed for less than a stabilization window: its window is not known yet
  Rules,    // none of the above
};
inline constexpr int kCauseCount = 5;
// "agree", "inputs", "history", "warmup", "rules": the label value.
const char* causeName(Cause cause);

// A comparison's facts, as the comparer has them.
struct CauseInputs {
  const api::HorizontalPodAutoscaler* hpa = nullptr;  // its spec; the status they wrote
  const report::ReconcileReport* ours = nullptr;      // our decision from their inputs
  const std::vector<Divergence>* divergences = nullptr;
  // The recommendations our decision stabilized over (without its own proposal) and the scale
  // events its policies counted.
  std::vector<api::TimestampedRecommendation> recommendations;
  std::vector<api::TimestampedScaleEvent> scaleUpEvents;
  std::vector<api::TimestampedScaleEvent> scaleDownEvents;
  const controller::ControllerOptions* options = nullptr;
  Time decidedAt;          // when our decision was made
  Duration observedFor{};  // how long the shadow has followed this HPA's decisions
};

struct CauseFinding {
  Cause cause = Cause::Agree;
  // For the log line: what differed and what explains it; for `rules`, the rule that decided
  // for us and what would have to hold for theirs.
  std::string detail;
  // The proposal that explains their decision, where the cause names one (their reported values,
  // the pods they counted, or ours): what they recorded in their window.
  std::optional<std::int32_t> theirProposal;
};

CauseFinding findCause(const CauseInputs& in);

// The proposal the metrics give when the other controller's reported values replace ours (per
// metric, from status.currentMetrics, with our pod counts); nullopt when a metric whose value
// differs cannot be decided again from its status alone (pods were assumed at the target or
// idle, or the metric failed on one side only).
std::optional<std::int32_t> proposalFromReported(const api::HorizontalPodAutoscaler& hpa,
                                                 const report::ReconcileReport& ours,
                                                 const controller::ControllerOptions& options);

// What they recorded in their window for the decision `theirs`, given our best estimate of their
// proposal: a decision below the current size (and the maximum) is at least the proposal it came
// from, since the scale-down path keeps the window's highest value and minReplicas and the
// scale-down policies only raise it; so an estimate above such a decision is lowered to it.
// The one-window `behavior` rules of 1.18-1.20 are the exception for a proposal at or above the
// current size (they take the scale-up window's lowest, which can lie below the current size).
std::optional<std::int32_t> theirRecordedProposal(std::optional<std::int32_t> estimate,
                                                  const StatusDecision& theirs,
                                                  const api::HorizontalPodAutoscalerSpec& spec,
                                                  const replicacalc::DecisionRules& rules);

// How long a shadow must have followed an HPA before it knows the other controller's
// stabilization window: the longest window the HPA's normalization consults.
Duration warmupSpan(const api::HorizontalPodAutoscalerSpec& spec,
                    const controller::ControllerOptions& options);

}  // namespace hpa::shadow
