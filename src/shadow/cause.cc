#include "shadow/cause.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "common/overloaded.h"
#include "replicacalc/normalization.h"
#include "replicacalc/replica_calculator.h"
#include "replicacalc/tolerances.h"
#include "report/decision_outcome.h"

namespace hpa::shadow {
namespace {

// Past this many candidate recommendations the search looks at the range's ends only.
constexpr std::int32_t kMaxCandidates = 2000;

std::optional<std::int64_t> milliOf(const std::optional<api::Quantity>& q) {
  if (!q) return std::nullopt;
  return q->milliValue();
}

// Equal in every field both report (a status written by another version may leave one out).
bool sameValues(const api::MetricValueStatus& a, const api::MetricValueStatus& b) {
  const auto agrees = [](const auto& x, const auto& y) { return !x || !y || *x == *y; };
  const bool common = (a.averageUtilization && b.averageUtilization) || (a.value && b.value) ||
                      (a.averageValue && b.averageValue);
  return common && agrees(a.averageUtilization, b.averageUtilization) &&
         agrees(milliOf(a.value), milliOf(b.value)) &&
         agrees(milliOf(a.averageValue), milliOf(b.averageValue));
}

std::string valueText(const api::MetricValueStatus* v) {
  if (!v) return "failed";
  if (v->averageUtilization) return fmt::format("{}%", *v->averageUtilization);
  if (v->averageValue) return fmt::format("{}m average", v->averageValue->milliValue());
  if (v->value) return fmt::format("{}m", v->value->milliValue());
  return "none";
}

// The metrics whose values differ between their status and ours: "cpu: theirs 65%, ours 40%".
std::vector<std::string> inputDifferences(const api::HorizontalPodAutoscaler& hpa,
                                          const report::ReconcileReport& ours) {
  std::vector<std::string> out;
  const auto& theirs = hpa.status.currentMetrics;
  for (std::size_t i = 0; i < ours.metrics.size(); ++i) {
    const auto* mine = ours.metrics[i].error ? nullptr : api::currentOf(ours.metrics[i].status);
    const auto* their = i < theirs.size() ? api::currentOf(theirs[i]) : nullptr;
    if (!mine && !their) continue;
    if (mine && their && sameValues(*mine, *their)) continue;
    const auto& name = ours.metrics[i].name.empty() ? ours.metrics[i].type : ours.metrics[i].name;
    out.push_back(fmt::format("{}: theirs {}, ours {}", name, valueText(their), valueText(mine)));
  }
  return out;
}

// Whether a ScalingActive condition says a metric (or the selector it reads by) failed.
bool failedReason(const std::string& scalingActive) {
  const std::string_view reason = reasonOf(scalingActive);
  for (const char* failed : {api::kFailedGetObjectMetric, api::kFailedGetPodsMetric,
                             api::kFailedGetResourceMetric, api::kFailedGetContainerResourceMetric,
                             api::kFailedGetExternalMetric, api::kInvalidSelector}) {
    if (reason == failed) return true;
  }
  return false;
}

// A workload-wide metric's proposal from a total over `current` replicas, by its type's own
// rule; nullopt for a type whose value is per pod (or when the calculator refuses).
std::optional<std::int32_t> proposalFromTotal(const api::MetricSpec& spec, std::int64_t total,
                                              std::int64_t target, std::int32_t current,
                                              const replicacalc::Tolerances& tolerances) {
  using Proposal = std::optional<std::int32_t>;
  const auto replicasOf = [](const auto& calc) -> Proposal {
    return calc.ok() ? Proposal(calc->replicas) : Proposal();
  };
  return std::visit(Overloaded{[&](const api::ObjectMetricSource&) {
                                 return replicasOf(replicacalc::calcObjectPerPodReplicas(
                                     {current, total, target, tolerances}));
                               },
                               [&](const api::ExternalMetricSource&) {
                                 return replicasOf(replicacalc::calcExternalPerPodReplicas(
                                     {current, {total}, target, tolerances}));
                               },
                               [](const api::PodsMetricSource&) { return Proposal(); },
                               [](const api::ResourceMetricSource&) { return Proposal(); },
                               [](const api::ContainerResourceMetricSource&) { return Proposal(); },
                               [](const api::UnknownMetricSource&) { return Proposal(); }},
                    spec.source);
}

// Metric `i`'s proposal from their reported value, as our calculation would have made it.
std::optional<std::int32_t> reportedProposal(const api::MetricSpec& spec,
                                             const report::MetricReport& mine,
                                             const api::MetricValueStatus& their,
                                             std::int32_t current,
                                             const replicacalc::Tolerances& tolerances) {
  const api::MetricTarget* target = api::targetOf(spec);
  if (!target || !mine.calculation || mine.calculation->rebalancedRatio || current <= 0)
    return std::nullopt;
  const std::int32_t ready = mine.calculation->readyPodCount;
  // Object and External averages are a workload's total over its replicas.
  const bool perPodOfTotal = api::isWorkloadWide(spec) && target->averageValue;
  if (perPodOfTotal) {
    if (!their.averageValue || target->averageValue->milliValue() <= 0) return std::nullopt;
    const std::int64_t perPod = their.averageValue->milliValue();
    // Their average is the total over the target's status replicas; at a sync that read none (an
    // HPA's first, before the target's status counted its pods) it is undefined (a huge or
    // negative number), and no total can be taken back from it.
    if (perPod < 0 || perPod > std::numeric_limits<std::int64_t>::max() / current)
      return std::nullopt;
    return proposalFromTotal(spec, perPod * current, target->averageValue->milliValue(), current,
                             tolerances);
  }
  double ratio = 0;
  if (target->averageUtilization && their.averageUtilization && *target->averageUtilization > 0) {
    ratio = static_cast<double>(*their.averageUtilization) /
            static_cast<double>(*target->averageUtilization);
  } else if (target->averageValue && their.averageValue && target->averageValue->milliValue() > 0) {
    ratio = static_cast<double>(their.averageValue->milliValue()) /
            static_cast<double>(target->averageValue->milliValue());
  } else if (target->value && their.value && target->value->milliValue() > 0) {
    ratio = static_cast<double>(their.value->milliValue()) /
            static_cast<double>(target->value->milliValue());
  } else {
    return std::nullopt;
  }
  return replicacalc::proposalForRatio(ratio, current, ready, tolerances);
}

// What the normalization gives from proposal `proposed` with `window` as the recommendation in
// the window (and the events as recorded), decided at `at`.
struct Phase {
  std::int32_t desired = 0;
  std::string ableToScale;
  std::string scalingLimited;
};

Phase normalizedAt(const CauseInputs& in, std::int32_t proposed, std::int32_t window, Time at) {
  const auto& ours = *in.ours;
  api::AutoscalerHistory history;
  history.recommendations.push_back({window, at});
  history.scaleUpEvents = in.scaleUpEvents;
  history.scaleDownEvents = in.scaleDownEvents;
  const replicacalc::NormalizationInput input{
      ours.currentReplicas, proposed, ours.minReplicas,
      ours.maxReplicas,     at,       in.options->decisionRules};
  const auto r = replicacalc::normalize(history, in.hpa->spec.behavior, input,
                                        in.options->downscaleStabilizationWindow);
  Phase phase;
  phase.desired = r.desired;
  phase.ableToScale = r.desired != ours.currentReplicas
                          ? conditionText(api::kConditionTrue, api::kSucceededRescale)
                          : conditionText(r.ableToScale.status, r.ableToScale.reason);
  phase.scalingLimited = conditionText(r.scalingLimited.status, r.scalingLimited.reason);
  return phase;
}

// The recommendations a window holds, with one sync period of slack at its far end (the two
// controllers record at instants up to a period apart): [lowest of the scale-up window, highest
// of the scale-down window], the proposal included.
std::pair<std::int32_t, std::int32_t> windowRange(const CauseInputs& in, std::int32_t proposed) {
  const auto period = in.options->syncPeriod;
  const auto [up, down] = replicacalc::stabilizationWindows(
      in.hpa->spec.behavior, in.options->downscaleStabilizationWindow);
  std::int32_t lo = proposed;
  std::int32_t hi = proposed;
  for (const auto& r : in.recommendations) {
    const Duration age = in.decidedAt - r.timestamp;
    if (up > Duration::zero() && age < up + period) lo = std::min(lo, r.replicas);
    if (down > Duration::zero() && age < down + period) hi = std::max(hi, r.replicas);
  }
  return {lo, hi};
}

// Whether some phase of our rules gives their decision from `proposed`: a window bound between
// the proposal and what our window holds, decided up to one sync period earlier or later.
bool phaseGivesTheirs(const CauseInputs& in, std::int32_t proposed, const StatusDecision& theirs) {
  bool wantAble = false;
  bool wantLimited = false;
  for (const auto& d : *in.divergences) {
    wantAble |= d.kind == DivergenceKind::AbleToScale;
    wantLimited |= d.kind == DivergenceKind::ScalingLimited;
  }
  // The bounds decide as the nearest of them would: nothing outside [0, max] is worth a try.
  const auto [held, holds] = windowRange(in, proposed);
  const std::int32_t lo = std::max(held, 0);
  const std::int32_t hi = std::min(holds, std::max(in.ours->maxReplicas, in.ours->currentReplicas));
  const auto period = in.options->syncPeriod;
  std::vector<std::int32_t> candidates;
  if (static_cast<std::int64_t>(hi) - lo > kMaxCandidates) {
    candidates = {lo, proposed, hi};
  } else {
    for (std::int32_t v = lo; v <= hi; ++v) candidates.push_back(v);
    // A window holding nothing but the proposal, even above maxReplicas: they then decide max,
    // limited (TooManyReplicas) and not stabilized, which no bound up to max gives.
    if (proposed > hi) candidates.push_back(proposed);
  }
  for (const Time at : {in.decidedAt - period, in.decidedAt, in.decidedAt + period}) {
    for (const std::int32_t v : candidates) {
      const Phase p = normalizedAt(in, proposed, v, at);
      if (p.desired != theirs.desiredReplicas) continue;
      if (wantAble && p.ableToScale != theirs.ableToScale) continue;
      if (wantLimited && p.scalingLimited != theirs.scalingLimited) continue;
      return true;
    }
  }
  return false;
}

std::string rulesDetail(const CauseInputs& in, const StatusDecision& theirs) {
  const auto& ours = *in.ours;
  const auto outcome = report::outcomeOf(ours, in.decidedAt);
  std::string metric;
  for (const auto& m : ours.metrics) {
    if (m.calculation && m.proposal && ours.metricReplicas && *m.proposal == *ours.metricReplicas) {
      metric = fmt::format("{}: {}", m.name.empty() ? m.type : m.name, m.calculation->decision);
      break;
    }
  }
  if (!ours.metricReplicas) {
    return fmt::format("ours: branch {}, limited by {}; theirs {} needs another branch",
                       report::branchName(ours.branch), report::limitName(outcome.limitedBy),
                       theirs.desiredReplicas);
  }
  const auto [lo, hi] = windowRange(in, *ours.metricReplicas);
  return fmt::format(
      "ours: proposal {} ({}), window holds [{}, {}], desired {} limited by {}; theirs {} needs a "
      "proposal or a "
      "window bound that gives it (another tolerance, window or limit)",
      *ours.metricReplicas, metric.empty() ? "no metric" : metric, lo, hi, ours.desiredReplicas,
      report::limitName(outcome.limitedBy), theirs.desiredReplicas);
}

// The proposal had the other controller not counted the pods our calculations assumed at the
// target or idle (missing or unready when we listed; it listed them a moment earlier, Pending
// or not yet there): each such metric's usage ratio over its ready pods alone. nullopt when no
// metric assumed a pod.
std::optional<std::int32_t> proposalWithoutAssumedPods(const CauseInputs& in) {
  const auto& ours = *in.ours;
  const auto tolerances =
      replicacalc::tolerancesFor(in.hpa->spec, in.options->tolerance, in.options->decisionRules);
  bool assumed = false;
  std::optional<std::int32_t> proposal;
  for (const auto& m : ours.metrics) {
    if (!m.proposal) continue;
    std::int32_t metric = *m.proposal;
    if (m.calculation && m.calculation->rebalancedRatio) {
      assumed = true;
      metric = replicacalc::proposalForRatio(m.calculation->usageRatio, ours.currentReplicas,
                                             m.calculation->readyPodCount, tolerances);
    }
    proposal = std::max(proposal.value_or(metric), metric);
  }
  return assumed ? proposal : std::nullopt;
}

}  // namespace

const char* causeName(Cause cause) {
  switch (cause) {
    case Cause::Agree:
      return "agree";
    case Cause::Inputs:
      return "inputs";
    case Cause::History:
      return "history";
    case Cause::Warmup:
      return "warmup";
    case Cause::Rules:
      return "rules";
  }
  return "unknown";
}

std::optional<std::int32_t> proposalFromReported(const api::HorizontalPodAutoscaler& hpa,
                                                 const report::ReconcileReport& ours,
                                                 const controller::ControllerOptions& options) {
  const auto tolerances =
      replicacalc::tolerancesFor(hpa.spec, options.tolerance, options.decisionRules);
  const auto& theirs = hpa.status.currentMetrics;
  std::optional<std::int32_t> proposal;
  for (std::size_t i = 0; i < ours.metrics.size() && i < hpa.spec.metrics.size(); ++i) {
    const auto& mine = ours.metrics[i];
    const auto* myValue = mine.error ? nullptr : api::currentOf(mine.status);
    const auto* their = i < theirs.size() ? api::currentOf(theirs[i]) : nullptr;
    if (!myValue && !their) continue;  // failed for both: no proposal from it
    if (!myValue || !their) return std::nullopt;
    std::optional<std::int32_t> metric = mine.proposal;
    if (!sameValues(*myValue, *their)) {
      metric =
          reportedProposal(hpa.spec.metrics[i], mine, *their, ours.currentReplicas, tolerances);
    }
    if (!metric) return std::nullopt;
    proposal = std::max(proposal.value_or(*metric), *metric);
  }
  return proposal;
}

std::optional<std::int32_t> theirRecordedProposal(std::optional<std::int32_t> estimate,
                                                  const StatusDecision& theirs,
                                                  const api::HorizontalPodAutoscalerSpec& spec,
                                                  const replicacalc::DecisionRules& rules) {
  if (!estimate) return estimate;
  const std::int32_t decided = theirs.desiredReplicas;
  const bool downward = decided < theirs.currentReplicas && decided < spec.maxReplicas;
  const bool upWindowMayLowerIt =
      spec.behavior && !rules.stabilizationEnvelope && *estimate >= theirs.currentReplicas;
  if (downward && *estimate > decided && !upWindowMayLowerIt) return decided;
  return estimate;
}

Duration warmupSpan(const api::HorizontalPodAutoscalerSpec& spec,
                    const controller::ControllerOptions& options) {
  const auto windows =
      replicacalc::stabilizationWindows(spec.behavior, options.downscaleStabilizationWindow);
  return std::max(windows.up, windows.down);
}

CauseFinding findCause(const CauseInputs& in) {
  if (in.divergences->empty()) return {Cause::Agree, "", std::nullopt};
  const auto& hpa = *in.hpa;
  const auto& ours = *in.ours;
  const StatusDecision theirs = decisionOf(hpa.status);
  const StatusDecision mine = decisionOf(ours.status);

  const auto differences = inputDifferences(hpa, ours);
  std::string inputs;
  for (const auto& d : differences) inputs += (inputs.empty() ? "" : "; ") + d;
  if (failedReason(theirs.scalingActive) != failedReason(mine.scalingActive)) {
    return {Cause::Inputs,
            fmt::format("a metric failed on one side only: ScalingActive {} (ours {}); {}",
                        theirs.scalingActive, mine.scalingActive, inputs),
            std::nullopt};
  }
  if (!differences.empty()) {
    const auto reported = proposalFromReported(hpa, ours, *in.options);
    if (!reported) {
      return {Cause::Inputs,
              fmt::format("{} (not decidable again from their status alone)", inputs),
              std::nullopt};
    }
    if (phaseGivesTheirs(in, *reported, theirs)) {
      return {Cause::Inputs,
              fmt::format("{}: their values propose {} and give their decision", inputs, *reported),
              *reported};
    }
    if (ours.metricReplicas && phaseGivesTheirs(in, *ours.metricReplicas, theirs)) {
      return {Cause::Inputs, fmt::format("{}: their decision is one our window gives", inputs),
              ours.metricReplicas};
    }
  }
  if (const auto counted = proposalWithoutAssumedPods(in);
      counted && phaseGivesTheirs(in, *counted, theirs)) {
    return {Cause::Inputs,
            fmt::format(
                "pods counted differently: without the pods we assumed at the target or idle "
                "(missing or unready at our list) the metrics propose {} and give their decision",
                *counted),
            *counted};
  }
  if (ours.metricReplicas && phaseGivesTheirs(in, *ours.metricReplicas, theirs)) {
    const auto [lo, hi] = windowRange(in, *ours.metricReplicas);
    return {Cause::History,
            fmt::format("same inputs; proposal {}, window holds [{}, {}]: a window or policy "
                        "period recorded at "
                        "their instants gives {}",
                        *ours.metricReplicas, lo, hi, theirs.desiredReplicas),
            ours.metricReplicas};
  }
  const Duration span = warmupSpan(hpa.spec, *in.options);
  if (in.observedFor < span) {
    return {Cause::Warmup,
            fmt::format("followed for {}s of a {}s window",
                        std::chrono::duration_cast<std::chrono::seconds>(in.observedFor).count(),
                        std::chrono::duration_cast<std::chrono::seconds>(span).count()),
            std::nullopt};
  }
  return {Cause::Rules, (inputs.empty() ? "" : inputs + "; ") + rulesDetail(in, theirs),
          std::nullopt};
}

}  // namespace hpa::shadow
