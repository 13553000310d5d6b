#include "replicacalc/replica_calculator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "api/metric_units.h"
#include "replicacalc/requests.h"

namespace hpa::replicacalc {
namespace {

using int128 = __int128;
constexpr std::int64_t kMaxInt64 = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMinInt64 = std::numeric_limits<std::int64_t>::min();

// Sums are exact in int128; results leave as saturated int64 (upstream wraps, which no
// realistic metric reaches; saturation never turns a huge load into a scale-down).
std::int64_t toInt64(int128 v) {
  if (v > kMaxInt64) return kMaxInt64;
  if (v < kMinInt64) return kMinInt64;
  return static_cast<std::int64_t>(v);
}

std::int32_t toInt32(int128 v) {
  if (v > std::numeric_limits<std::int32_t>::max()) return std::numeric_limits<std::int32_t>::max();
  if (v < std::numeric_limits<std::int32_t>::min()) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(v);
}

std::int64_t ceilToInt64(double x) {
  if (std::isnan(x)) return 0;
  double c = std::ceil(x);
  if (c >= 9223372036854775807.0) return kMaxInt64;
  if (c <= -9223372036854775808.0) return kMinInt64;
  return static_cast<std::int64_t>(c);
}

const char* kNoPods = "no pods returned by selector while calculating replica count";
const char* kNoMetrics = "did not receive metrics for targeted pods (pods might be unready)";

// The per-pod state both pod-based calculators share.
struct PodView {
  PodGrouping grouping;
  std::vector<const PodMetric*> samples;  // aligned with grouping.pods; nullptr when missing
  int128 remainingSum = 0;                // metrics left after dropping ignored and unready pods
  std::int64_t remainingCount = 0;        // ... including samples of pods the lister did not return
};

PodView viewPods(const std::vector<const api::Pod*>& pods, const PodMetricsInfo& metrics,
                 std::string_view resource, const CalculatorOptions& options, Time now) {
  PodView v;
  v.grouping = groupPods(pods, metrics, resource, options, now);
  v.samples.reserve(pods.size());
  for (const auto& [name, m] : metrics) v.remainingSum += m.value;
  v.remainingCount = static_cast<std::int64_t>(metrics.size());
  for (const auto& g : v.grouping.pods) {
    const PodMetric* sample = g.sample;
    v.samples.push_back(sample);
    if (sample && (g.group == PodGroup::Ignored || g.group == PodGroup::Unready)) {
      v.remainingSum -= sample->value;
      --v.remainingCount;
    }
  }
  return v;
}

std::vector<PodExplanation> explainPods(const PodView& v,
                                        const std::vector<std::int64_t>* requests) {
  std::vector<PodExplanation> out;
  out.reserve(v.grouping.pods.size());
  for (size_t i = 0; i < v.grouping.pods.size(); ++i) {
    const auto& g = v.grouping.pods[i];
    PodExplanation e{g.pod->name, g.group, g.reason, std::nullopt, std::nullopt, std::nullopt};
    if (v.samples[i]) e.value = v.samples[i]->value;
    if (requests) e.request = (*requests)[i];
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

std::int32_t ceilToInt32(double x) {
  if (std::isnan(x)) return 0;
  double c = std::ceil(x);
  if (c >= 2147483647.0) return std::numeric_limits<std::int32_t>::max();
  if (c <= -2147483648.0) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(c);
}

std::int32_t proposalForRatio(double usageRatio, std::int32_t currentReplicas,
                              std::int32_t readyPods, const Tolerances& tolerances) {
  if (tolerances.isWithin(usageRatio)) return currentReplicas;
  return ceilToInt32(usageRatio * readyPods);
}

namespace {

// How a release rebalances, for one calculator.
struct RebalanceRules {
  // A ratio of exactly 1 assumes missing pods idle (plain metrics before 1.28), as a scale-up
  // would.
  bool fillMissingAtExactRatio = false;
  // A rebalanced count that moves against the ratio keeps the current count (utilization
  // always; plain metrics since 1.21).
  bool directionGuard = true;
};

// What filling does to each group, for one calculator. `missingFill(i)` is the value assumed
// for missing pod i on a scale-down.
template <typename MissingFill, typename Ratio>
Calculation finishPodBased(std::int32_t currentReplicas, double usageRatio,
                           const Tolerances& tolerances, const RebalanceRules& rebalance,
                           PodView& view, const MissingFill& missingFill, const Ratio& ratioOf,
                           Calculation calc) {
  const auto& grouping = view.grouping;
  calc.usageRatio = usageRatio;
  calc.readyPodCount = grouping.readyPodCount;
  calc.unreadyPodCount = grouping.unreadyCount;
  calc.missingPodCount = grouping.missingCount;
  calc.ignoredPodCount = grouping.ignoredCount;
  const bool scaleUpWithUnready = grouping.unreadyCount > 0 && usageRatio > 1.0;
  if (!scaleUpWithUnready && grouping.missingCount == 0) {
    calc.replicas =
        proposalForRatio(usageRatio, currentReplicas, grouping.readyPodCount, tolerances);
    if (tolerances.isWithin(usageRatio)) {
      calc.withinTolerance = true;
      calc.decision = fmt::format(
          "usage ratio {:.4g} is within tolerance [{:.4g}, {:.4g}]: keep {} replicas", usageRatio,
          1.0 - tolerances.scaleDown, 1.0 + tolerances.scaleUp, currentReplicas);
      return calc;
    }
    calc.decision = fmt::format("ceil(usage ratio {:.4g} x {} ready pods) = {}", usageRatio,
                                grouping.readyPodCount, calc.replicas);
    return calc;
  }

  // Rebalance: missing pods count as at the target on a scale-down and idle on a scale-up;
  // unready pods count as idle on a scale-up, so neither can exaggerate the change.
  std::vector<std::optional<std::int64_t>> assumed(grouping.pods.size());
  for (size_t i = 0; i < grouping.pods.size(); ++i) {
    const auto group = grouping.pods[i].group;
    if (group == PodGroup::Missing) {
      if (usageRatio < 1.0) {
        assumed[i] = missingFill(i);
      } else if (usageRatio > 1.0 || rebalance.fillMissingAtExactRatio) {
        assumed[i] = 0;
      }
    } else if (group == PodGroup::Unready && scaleUpWithUnready) {
      assumed[i] = 0;
    }
  }
  auto [newRatio, metricCount] = ratioOf(assumed);
  if (!calc.pods.empty()) {
    for (size_t i = 0; i < assumed.size(); ++i) calc.pods[i].assumedValue = assumed[i];
  }
  calc.rebalancedRatio = newRatio;
  if (tolerances.isWithin(newRatio) || (usageRatio < 1.0 && newRatio > 1.0) ||
      (usageRatio > 1.0 && newRatio < 1.0)) {
    calc.replicas = currentReplicas;
    calc.withinTolerance = tolerances.isWithin(newRatio);
    calc.decision = fmt::format(
        "usage ratio {:.4g} becomes {:.4g} once missing/unready pods are assumed {}: {} so keep {} "
        "replicas",
        usageRatio, newRatio, usageRatio < 1.0 ? "at the target" : "idle",
        tolerances.isWithin(newRatio) ? "within tolerance" : "direction flipped", currentReplicas);
    return calc;
  }
  const std::int32_t newReplicas = ceilToInt32(newRatio * static_cast<double>(metricCount));
  if (rebalance.directionGuard && ((newRatio < 1.0 && newReplicas > currentReplicas) ||
                                   (newRatio > 1.0 && newReplicas < currentReplicas))) {
    calc.replicas = currentReplicas;
    calc.decision = fmt::format(
        "rebalanced ratio {:.4g} x {} pods = {} would move against the ratio: keep {} replicas",
        newRatio, metricCount, newReplicas, currentReplicas);
    return calc;
  }
  calc.replicas = newReplicas;
  calc.decision = fmt::format(
      "ceil(rebalanced ratio {:.4g} x {} pods) = {} (usage ratio {:.4g} before rebalancing)",
      newRatio, metricCount, newReplicas, usageRatio);
  return calc;
}

struct Utilization {
  std::int32_t utilization = 0;
  double ratio = 0;
  std::int64_t rawAverage = 0;
};

Result<Utilization> utilizationRatio(int128 metricsTotal, int128 requestsTotal, std::int64_t n,
                                     std::int32_t target) {
  if (requestsTotal == 0) return Error::of("no metrics returned matched known pods");
  Utilization u;
  u.utilization = toInt32(metricsTotal * 100 / requestsTotal);
  u.ratio = static_cast<double>(u.utilization) / static_cast<double>(target);
  u.rawAverage = n > 0 ? toInt64(metricsTotal / n) : 0;
  return u;
}

}  // namespace

Result<Calculation> calcResourceUtilizationReplicas(const ResourceUtilizationInput& in) {
  if (in.pods.empty()) return Error::of(kNoPods);
  PodView view = viewPods(in.pods, in.metrics, in.resource, in.options, in.now);
  if (view.remainingCount == 0) return Error::of(kNoMetrics);

  std::vector<std::int64_t> requests;
  requests.reserve(in.pods.size());
  for (const api::Pod* pod : in.pods) {
    auto r =
        podRequest(*pod, in.container, in.resource, in.options.requestsSource, in.options.rules);
    if (!r.ok()) return r.error();
    requests.push_back(*r);
  }
  // Only samples of listed pods have a request; the others do not count here.
  int128 metricsTotal = 0;
  int128 requestsTotal = 0;
  std::int64_t n = 0;
  for (size_t i = 0; i < view.grouping.pods.size(); ++i) {
    if (view.grouping.pods[i].group != PodGroup::Ready) continue;
    metricsTotal += view.samples[i]->value;
    requestsTotal += requests[i];
    ++n;
  }
  auto first = utilizationRatio(metricsTotal, requestsTotal, n, in.targetUtilization);
  if (!first.ok()) return first.error();

  Calculation calc;
  calc.usage = first->rawAverage;
  calc.utilization = first->utilization;
  calc.timestamp = in.metricsTimestamp;
  if (in.options.explainPods) calc.pods = explainPods(view, &requests);

  const std::int64_t leftovers = view.remainingCount - view.grouping.readyPodCount;
  // A missing pod on a scale-down: at its request (100 %), or since 1.26 at the target when that
  // is higher, so that it cannot pull the average below the target.
  const std::int32_t missingPercent = in.options.rules.missingPodsAtTargetUtilization
                                          ? std::max<std::int32_t>(100, in.targetUtilization)
                                          : 100;
  auto missingFill = [&](size_t i) {
    return toInt64(static_cast<int128>(requests[i]) * missingPercent / 100);
  };
  auto ratioOf = [&](const std::vector<std::optional<std::int64_t>>& assumed) {
    int128 total = metricsTotal;
    int128 requested = requestsTotal;
    std::int64_t count = n + leftovers;
    for (size_t i = 0; i < assumed.size(); ++i) {
      if (!assumed[i]) continue;
      total += *assumed[i];
      requested += requests[i];
      ++count;
    }
    auto u = utilizationRatio(total, requested, count, in.targetUtilization);
    return std::pair<double, std::int64_t>{u.ok() ? u->ratio : first->ratio, count};
  };
  return finishPodBased(in.currentReplicas, first->ratio, in.tolerances, RebalanceRules{}, view,
                        missingFill, ratioOf, std::move(calc));
}

Result<Calculation> calcPlainMetricReplicas(const PlainMetricInput& in) {
  if (in.pods.empty()) return Error::of(kNoPods);
  PodView view = viewPods(in.pods, in.metrics, in.resource, in.options, in.now);
  if (view.remainingCount == 0) return Error::of(kNoMetrics);

  const std::int64_t usage = toInt64(view.remainingSum / view.remainingCount);
  const double usageRatio = static_cast<double>(usage) / static_cast<double>(in.targetUsage);
  Calculation calc;
  calc.usage = usage;
  calc.timestamp = in.metricsTimestamp;
  if (in.options.explainPods) calc.pods = explainPods(view, nullptr);

  auto missingFill = [&](size_t) { return in.targetUsage; };
  auto ratioOf = [&](const std::vector<std::optional<std::int64_t>>& assumed) {
    int128 total = view.remainingSum;
    std::int64_t count = view.remainingCount;
    for (const auto& a : assumed) {
      if (!a) continue;
      total += *a;
      ++count;
    }
    const std::int64_t newUsage = toInt64(total / count);
    return std::pair<double, std::int64_t>{
        static_cast<double>(newUsage) / static_cast<double>(in.targetUsage), count};
  };
  const RebalanceRules rebalance{!in.options.rules.exactRatioLeavesMissingPodsOut,
                                 in.options.rules.plainMetricDirectionGuard};
  return finishPodBased(in.currentReplicas, usageRatio, in.tolerances, rebalance, view, missingFill,
                        ratioOf, std::move(calc));
}

namespace {

// usageRatioReplicaCount: Value targets of object and external metrics scale the Running and
// Ready pods by the ratio; from zero replicas the ratio alone decides.
Result<Calculation> usageRatioReplicaCount(std::int32_t currentReplicas, double usageRatio,
                                           const Tolerances& tolerances,
                                           const std::vector<const api::Pod*>& pods,
                                           const std::optional<Error>& podListError,
                                           Calculation calc) {
  calc.usageRatio = usageRatio;
  if (currentReplicas == 0) {
    calc.replicas = ceilToInt32(usageRatio);
    calc.decision =
        fmt::format("scaling from zero: ceil(usage ratio {:.4g}) = {}", usageRatio, calc.replicas);
    return calc;
  }
  if (tolerances.isWithin(usageRatio)) {
    calc.replicas = currentReplicas;
    calc.withinTolerance = true;
    calc.decision = fmt::format(
        "usage ratio {:.4g} is within tolerance [{:.4g}, {:.4g}]: keep {} replicas", usageRatio,
        1.0 - tolerances.scaleDown, 1.0 + tolerances.scaleUp, currentReplicas);
    return calc;
  }
  if (podListError) {
    return podListError->wrap(
        "unable to calculate ready pods: unable to get pods while calculating replica count");
  }
  if (pods.empty()) return Error::format("unable to calculate ready pods: {}", kNoPods);
  std::int32_t ready = 0;
  for (const api::Pod* pod : pods) {
    if (pod->phase == api::kPodRunning && pod->ready && pod->ready->status == "True") ++ready;
  }
  calc.readyPodCount = ready;
  calc.replicas = ceilToInt32(usageRatio * ready);
  calc.decision = fmt::format("ceil(usage ratio {:.4g} x {} Running and Ready pods) = {}",
                              usageRatio, ready, calc.replicas);
  return calc;
}

// Sum of external series; a positive overflow saturates (and stops) as upstream does.
std::int64_t sumSaturating(const std::vector<std::int64_t>& values) {
  int128 sum = 0;
  for (std::int64_t v : values) {
    sum += v;
    if (sum >= kMaxInt64) return kMaxInt64;
  }
  return toInt64(sum);
}

// Per-pod (AverageValue) targets of object and external metrics: total usage divided by the
// target per pod, no pod listing.
Calculation perPodReplicas(std::int32_t statusReplicas, std::int64_t usage,
                           std::int64_t targetPerPod, const Tolerances& tolerances,
                           std::int32_t specReplicas, WithinToleranceKeep keep) {
  Calculation calc;
  const double usageRatio = static_cast<double>(usage) / (static_cast<double>(targetPerPod) *
                                                          static_cast<double>(statusReplicas));
  calc.usageRatio = usageRatio;
  if (tolerances.isWithin(usageRatio)) {
    const bool spec = keep == WithinToleranceKeep::Spec;
    calc.replicas = spec ? specReplicas : statusReplicas;
    calc.withinTolerance = true;
    calc.decision =
        fmt::format("usage ratio {:.4g} is within tolerance [{:.4g}, {:.4g}]: keep {} replicas{}",
                    usageRatio, 1.0 - tolerances.scaleDown, 1.0 + tolerances.scaleUp, calc.replicas,
                    spec ? " (spec's)" : "");
  } else {
    calc.replicas = ceilToInt32(static_cast<double>(usage) / static_cast<double>(targetPerPod));
    // Object and external metrics only: their values are plain numbers, not cpu or bytes.
    calc.decision = fmt::format(
        "ceil(total {} / target per pod {}) = {}", api::formatMilli(usage, api::MetricUnit::Number),
        api::formatMilli(targetPerPod, api::MetricUnit::Number), calc.replicas);
  }
  calc.usage = usage >= kMaxInt64
                   ? kMaxInt64
                   : ceilToInt64(static_cast<double>(usage) / static_cast<double>(statusReplicas));
  return calc;
}

}  // namespace

Result<Calculation> calcObjectValueReplicas(const ObjectValueInput& in) {
  Calculation calc;
  calc.usage = in.usage;
  const double ratio = static_cast<double>(in.usage) / static_cast<double>(in.target);
  return usageRatioReplicaCount(in.currentReplicas, ratio, in.tolerances, in.pods, in.podListError,
                                std::move(calc));
}

Result<Calculation> calcObjectPerPodReplicas(const ObjectPerPodInput& in) {
  return perPodReplicas(in.statusReplicas, in.usage, in.targetAverage, in.tolerances,
                        in.specReplicas, in.keep);
}

Result<Calculation> calcExternalValueReplicas(const ExternalValueInput& in) {
  Calculation calc;
  calc.usage = sumSaturating(in.values);
  const double ratio = static_cast<double>(calc.usage) / static_cast<double>(in.target);
  return usageRatioReplicaCount(in.specReplicas, ratio, in.tolerances, in.pods, in.podListError,
                                std::move(calc));
}

Result<Calculation> calcExternalPerPodReplicas(const ExternalPerPodInput& in) {
  return perPodReplicas(in.statusReplicas, sumSaturating(in.values), in.targetPerPod, in.tolerances,
                        in.specReplicas, in.keep);
}

}  // namespace hpa::replicacalc
