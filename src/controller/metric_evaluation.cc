// The metric half of a reconcile: selector validation, the ambiguity check, and one replica
// proposal per metric spec, with upstream's error texts, conditions and events.

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "api/pod_prefetch.h"
#include "common/quote.h"
#include "controller/conditions.h"
#include "controller/reconcile.h"
#include "controller/spec_error.h"
#include "replicacalc/replica_calculator.h"
#include "replicacalc/requests.h"

namespace hpa::controller {
namespace {

// Status quantities as upstream builds them: memory in binary SI (as metrics-server reports
// it), everything else in decimal SI.
api::Quantity buildQuantity(const std::string& resource, std::int64_t milli) {
  return api::Quantity::fromMilli(
      milli, resource == "memory" ? api::QuantityFormat::BinarySI : api::QuantityFormat::DecimalSI);
}

std::string joinKeys(const std::vector<std::string>& keys) {
  std::string out = "[";
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) out += ' ';
    out += keys[i];
  }
  return out + "]";
}

const api::LabelSelector* ptr(const std::optional<api::LabelSelector>& s) {
  return s ? &*s : nullptr;
}

// The reason a metric of each type fails with: its ScalingActive condition's and Warning Event's.
const char* failureReason(const api::ObjectMetricSource&) { return api::kFailedGetObjectMetric; }
const char* failureReason(const api::PodsMetricSource&) { return api::kFailedGetPodsMetric; }
const char* failureReason(const api::ResourceMetricSource&) {
  return api::kFailedGetResourceMetric;
}
const char* failureReason(const api::ContainerResourceMetricSource&) {
  return api::kFailedGetContainerResourceMetric;
}
const char* failureReason(const api::ExternalMetricSource&) {
  return api::kFailedGetExternalMetric;
}

// Object and Pods metrics: the metric's selector is parsed first (a bad one fails the metric),
// then `evaluate` reads with it; a failure is wrapped in `context`, as upstream wraps it.
template <typename Source, typename Evaluate>
std::optional<Failure> withMetricSelector(const Source& source, const char* context,
                                          Evaluate&& evaluate) {
  auto metricSelector = api::Selector::fromLabelSelector(ptr(source.metric.selector));
  std::optional<Failure> f = metricSelector.ok()
                                 ? evaluate(*metricSelector)
                                 : Failure::of(failureReason(source), metricSelector.error());
  if (f) return f->wrap(context);
  return std::nullopt;
}

// A type this controller (or the release whose rules decide) does not know: a spec error.
Failure unknownType(std::string_view type) {
  return Failure::of(api::kInvalidMetricSourceType,
                     specError(Error::format("unknown metric source type {}", quote(type))));
}

}  // namespace

api::HorizontalPodAutoscalerCondition Reconcile::unableToCompute(const std::string& reason,
                                                                 const Error& error) {
  event(kEventWarning, reason, error.message);
  return api::HorizontalPodAutoscalerCondition{
      api::kScalingActive,
      api::kConditionFalse,
      std::nullopt,
      reason,
      fmt::format("the HPA was unable to compute the replica count: {}", error.message),
      std::nullopt};
}

Result<api::Selector> Reconcile::validateAndParseSelector(const std::string& selectorText,
                                                          std::string& failureReason) {
  if (selectorText.empty()) {
    const std::string msg = "selector is required";
    failureReason = api::kSelectorRequired;
    event(kEventWarning, failureReason, msg);
    condition(api::kScalingActive, api::kConditionFalse, api::kInvalidSelector,
              "the HPA target's scale is missing a selector");
    return Error::of(msg);
  }
  auto selector = api::Selector::parse(selectorText);
  if (!selector.ok()) {
    std::string msg =
        fmt::format("couldn't convert selector into a corresponding internal selector object: {}",
                    selector.error().message);
    failureReason = api::kInvalidSelector;
    event(kEventWarning, failureReason, msg);
    condition(api::kScalingActive, api::kConditionFalse, api::kInvalidSelector, msg);
    return Error::of(msg);
  }
  if (!s_.selectors.update(key_, *selector)) {
    return Error::format("HPA {}/{} was deleted during reconciliation", hpa_.metadata.namespace_,
                         hpa_.metadata.name);
  }
  auto pods = listPods(*selector);
  if (!pods.ok()) return pods.error();
  auto selecting = s_.selectors.hpasSelectingAny(hpa_.metadata.namespace_, *pods, 2);
  if (selecting.size() > 1) {
    std::string msg = fmt::format("pods by selector {} are controlled by multiple HPAs: {}",
                                  selectorText, joinKeys(selecting));
    failureReason = api::kAmbiguousSelector;
    event(kEventWarning, failureReason, msg);
    condition(api::kScalingActive, api::kConditionFalse, api::kAmbiguousSelector, msg);
    return Error::of(msg);
  }
  return selector;
}

namespace {

// Owner-based selection counts the listed pods only; the metrics API answered for the label
// selector, so the other pods' values go too.
void keepListedPods(replicacalc::PodMetricsInfo& metrics,
                    const std::vector<const api::Pod*>& pods) {
  std::unordered_set<std::string_view> listed;
  for (const auto* p : pods) listed.insert(p->name);
  metrics.eraseIf([&](const auto& entry) { return !listed.contains(entry.first); });
}

}  // namespace

Result<std::vector<const api::Pod*>> Reconcile::listPods(const api::Selector& selector) {
  if (lastListedSelector_ && *lastListedSelector_ == selector) return lastListed_;
  auto listed = s_.deps.pods.list(hpa_.metadata.namespace_, selector);
  if (!listed.ok()) return listed.error();
  const auto& all = **listed;
  std::vector<const api::Pod*> pods;
  pods.reserve(all.size());
  const Time createdBefore = decide_.podsCreatedBefore.value_or(Time::max());
  const controls::PodFilter* filter = setup_.podFilter;
  // The reconcile's first touch of its pods: the prefetch makes the selection, metrics and
  // calculator after it find them cached.
  const api::PodListPrefetcher prefetch(all);
  for (std::size_t i = 0; i < all.size(); ++i) {
    prefetch.before(i);
    const auto& p = all[i];
    if (p->creationTimestamp && *p->creationTimestamp >= createdBefore) continue;
    if (filter) {
      auto counts = filter->counts(*this, *p);
      if (!counts.ok()) return counts.error();
      if (!*counts) continue;
    }
    pods.push_back(p.get());
  }
  listedPods_.push_back(std::move(*listed));
  lastListedSelector_ = selector;
  lastListed_ = pods;
  return pods;
}

Reconcile::MetricsOutcome Reconcile::computeReplicasForMetrics(const api::Scale& scale) {
  MetricsOutcome outcome;
  auto selector = validateAndParseSelector(scale.selector, outcome.errorReason);
  if (!selector.ok()) {
    outcome.error = selector.error();
    return outcome;
  }
  const auto& specs = hpa_.spec.metrics;
  if (specs.empty()) {
    // API defaulting always adds the CPU metric; an object without metrics cannot reach here
    // from a server, and must not scale on nothing.
    condition(api::kScalingActive, api::kConditionFalse, api::kInvalidMetricSourceType,
              "the HPA was unable to compute the replica count: no metrics specified");
    outcome.error = Error::of("no metrics specified");
    return outcome;
  }
  const MetricInputs in{scale, *selector, &s_.deps.metrics};
  report_.metrics.resize(specs.size());
  MetricFailures failures;
  for (std::size_t i = 0; i < specs.size(); ++i) evaluateMetric(i, in, failures);
  outcome.statuses.reserve(specs.size());
  for (const auto& m : report_.metrics) outcome.statuses.push_back(m.status);

  const std::int32_t replicas = largestProposal(outcome.metricName);
  if (failures.first) {
    outcome.errorReason = failures.firstCondition.reason;
    outcome.error = failures.first->wrap(fmt::format(
        "invalid metrics ({} invalid out of {}), first error is", failures.count, specs.size()));
  }
  // All metrics failed, or (since 1.21) some failed and the rest would scale down: do nothing.
  const bool blocksScaleDown = s_.options.decisionRules.partialInvalidMetricsBlockScaleDown;
  if (failures.count >= static_cast<int>(specs.size()) ||
      (blocksScaleDown && failures.count > 0 && replicas < scale.specReplicas)) {
    const auto& c = failures.firstCondition;
    condition(c.type, c.status, c.reason, c.message);
    outcome.metricName.clear();
    s_.controls.afterMetrics(*this, /*decided=*/false);
    return outcome;
  }
  condition(api::kScalingActive, api::kConditionTrue, api::kValidMetricFound,
            fmt::format("the HPA was able to successfully calculate a replica count from {}",
                        outcome.metricName));
  s_.controls.afterMetrics(*this, /*decided=*/true);
  outcome.replicas = replicas;
  return outcome;
}

void Reconcile::evaluateMetric(std::size_t index, const MetricInputs& in,
                               MetricFailures& failures) {
  auto& mr = report_.metrics[index];
  mr.type = api::typeOf(hpa_.spec.metrics[index]);
  const auto started = std::chrono::steady_clock::now();
  MetricInputs metricIn = in;
  std::shared_ptr<metricsclient::MetricsClient> routed;
  if (index < setup_.metricRoutes.size() && setup_.metricRoutes[index]) {
    const auto& route = *setup_.metricRoutes[index];
    mr.source = api::describeRoute(route);
    routed = s_.deps.routes ? s_.deps.routes->clientFor(route)
                            : std::make_shared<metricsclient::FailingMetricsClient>(
                                  Error::format("no client for metrics from {} here", mr.source));
    metricIn.metrics = routed.get();
  }
  const std::optional<Failure> failure =
      computeReplicasForMetric(hpa_.spec.metrics[index], metricIn, mr);
  api::HorizontalPodAutoscalerCondition failureCondition;
  if (failure) {
    // A failure without a reason has no condition and no Event (upstream returns the error alone).
    if (!failure->reason.empty())
      failureCondition = unableToCompute(failure->reason, failure->shown);
    mr.error = failure->shown.message;
    mr.conditionReason = failure->reason;
  } else {
    s_.controls.metricSucceeded(*this, index);
  }

  std::string action = kActionNone;
  if (!failure && mr.proposal) {
    if (*mr.proposal > originalStatus_.currentReplicas) action = kActionScaleUp;
    if (*mr.proposal < originalStatus_.currentReplicas) action = kActionScaleDown;
  }
  const std::string errorLabel =
      !failure ? kErrorNone : (isSpecError(failure->returned) ? kErrorSpec : kErrorInternal);
  s_.deps.observer->metricComputation(
      action, errorLabel,
      std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - started), mr.type);
  if (!failure) return;

  // A control may propose a size for the failed metric (a fallback): it then counts as valid.
  controls::FailedMetric failed{index, failure->returned, isSpecError(failure->returned),
                                in.scale.specReplicas, mr.fallback};
  s_.controls.metricFailed(*this, failed);
  if (mr.fallback) {
    mr.proposal = mr.fallback->replicas;
    return;
  }
  if (failures.count == 0) {
    failures.first = failure->returned;
    failures.firstCondition = std::move(failureCondition);
  }
  ++failures.count;
}

std::int32_t Reconcile::largestProposal(std::string& metricName) const {
  std::int32_t replicas = 0;
  for (const auto& m : report_.metrics) {
    if (m.error && !m.fallback) continue;           // failed, and no control proposed for it
    if (replicas == 0 || *m.proposal > replicas) {  // max; ties keep the earlier metric
      replicas = *m.proposal;
      metricName = m.fallback ? fmt::format("{} (fallback)", m.fallback->metric) : m.name;
    }
  }
  return replicas;
}

std::optional<Failure> Reconcile::computeReplicasForMetric(const api::MetricSpec& spec,
                                                           const MetricInputs& in,
                                                           report::MetricReport& report) {
  if (api::namesType<api::ContainerResourceMetricSource>(spec)) {
    const auto& rules = s_.options.decisionRules;
    // Before 1.20 the type does not exist; with its gate checked and off it is refused.
    if (!rules.containerResourceMetrics) return unknownType(api::typeOf(spec));
    if (rules.containerMetricsGateChecked && !rules.gates.hpaContainerMetrics) {
      return Failure::of(
          "", Error::of(
                  "ContainerResource metric type is not supported: disabled by the feature gate"));
    }
  }
  // One evaluator per type: a type of api::MetricSource without one does not compile.
  return std::visit([&](const auto& source) { return evaluate(source, in, report); }, spec.source);
}

std::optional<Failure> Reconcile::evaluate(const api::ObjectMetricSource& source,
                                           const MetricInputs& in, report::MetricReport& report) {
  return withMetricSelector(source, "failed to get object metric value",
                            [&](const api::Selector& metricSelector) {
                              return evaluateObject(source, metricSelector, in, report);
                            });
}

std::optional<Failure> Reconcile::evaluate(const api::PodsMetricSource& source,
                                           const MetricInputs& in, report::MetricReport& report) {
  return withMetricSelector(source, "failed to get pods metric value",
                            [&](const api::Selector& metricSelector) {
                              return evaluatePods(source, metricSelector, in, report);
                            });
}

std::optional<Failure> Reconcile::evaluate(const api::ResourceMetricSource& source,
                                           const MetricInputs& in, report::MetricReport& report) {
  if (auto f = evaluateResource(failureReason(source), source.name, "", false, source.target, in,
                                report)) {
    return f->wrap(fmt::format("failed to get {} resource metric value", source.name));
  }
  return std::nullopt;
}

std::optional<Failure> Reconcile::evaluate(const api::ContainerResourceMetricSource& source,
                                           const MetricInputs& in, report::MetricReport& report) {
  if (auto f = evaluateResource(failureReason(source), source.name, source.container, true,
                                source.target, in, report)) {
    return f->wrap(fmt::format("failed to get {} container metric value", source.container));
  }
  return std::nullopt;
}

std::optional<Failure> Reconcile::evaluate(const api::ExternalMetricSource& source,
                                           const MetricInputs& in, report::MetricReport& report) {
  if (auto f = evaluateExternal(source, in, report)) {
    return f->wrap(fmt::format("failed to get {} external metric value", source.metric.name));
  }
  return std::nullopt;
}

std::optional<Failure> Reconcile::evaluate(const api::UnknownMetricSource& source,
                                           const MetricInputs&, report::MetricReport&) {
  // A type this controller knows whose field is absent: upstream dereferences the source without
  // a check (API validation guarantees it); here it is reported like an invalid target instead.
  if (const auto named = api::emptySourceOfType(source.type)) {
    return std::visit(
        [](const auto& empty) -> std::optional<Failure> {
          using Source = std::decay_t<decltype(empty)>;
          if constexpr (std::is_same_v<Source, api::UnknownMetricSource>) {
            return std::nullopt;  // emptySourceOfType names known types only
          } else {
            return Failure::of(failureReason(empty),
                               Error::format("invalid {} metric source: the {} field is not set",
                                             Source::kField, Source::kField));
          }
        },
        *named);
  }
  return unknownType(source.type);
}

std::optional<Failure> Reconcile::evaluateObject(const api::ObjectMetricSource& source,
                                                 const api::Selector& metricSelector,
                                                 const MetricInputs& in,
                                                 report::MetricReport& report) {
  const std::string reason = failureReason(source);
  api::MetricStatus status;
  status.type = api::kObjectMetric;
  status.object = api::ObjectMetricStatus{source.metric, {}, source.describedObject};
  const auto& target = source.target;
  auto fetch = [&]() -> Result<metricsclient::ObjectMetricResult> {
    auto r = in.metrics->getObjectMetric(source.metric.name, hpa_.metadata.namespace_,
                                         source.describedObject, metricSelector);
    if (!r.ok()) {
      // Upstream's format string has its arguments in this (odd) order; reproduced as is.
      return r.error().wrap(fmt::format("unable to get metric {}: {} on {} {}", source.metric.name,
                                        source.describedObject.kind, hpa_.metadata.namespace_,
                                        source.describedObject.name),
                            "/");
    }
    return r;
  };

  if (target.type == api::kValueTarget && target.value) {
    auto usage = fetch();
    if (!usage.ok()) return Failure{reason, usage.error(), usage.error()};
    auto pods = listPods(in.podSelector);
    replicacalc::ObjectValueInput input{
        in.scale.specReplicas,
        usage->value,
        target.value->milliValue(),
        tolerances_,
        pods.ok() ? *pods : std::vector<const api::Pod*>{},
        pods.ok() ? std::nullopt : std::optional<Error>(pods.error())};
    auto calc = replicacalc::calcObjectValueReplicas(input);
    if (!calc.ok()) return Failure{reason, calc.error(), calc.error()};
    status.object->current.value = api::Quantity::fromMilli(calc->usage);
    report.name = fmt::format("{} metric {}", source.describedObject.kind, source.metric.name);
    report.proposal = calc->replicas;
    report.calculation = *calc;
    report.status = status;
    return std::nullopt;
  }
  if (target.type == api::kAverageValueTarget && target.averageValue) {
    auto usage = fetch();
    if (!usage.ok()) {
      return Failure{
          reason, usage.error(),
          usage.error().wrap(fmt::format("failed to get {} object metric", source.metric.name))};
    }
    replicacalc::ObjectPerPodInput input{in.scale.statusReplicas,
                                         usage->value,
                                         target.averageValue->milliValue(),
                                         tolerances_,
                                         in.scale.specReplicas,
                                         withinToleranceKeep()};
    auto calc = replicacalc::calcObjectPerPodReplicas(input);
    if (!calc.ok()) {
      return Failure{
          reason, calc.error(),
          calc.error().wrap(fmt::format("failed to get {} object metric", source.metric.name))};
    }
    status.object->current.averageValue = api::Quantity::fromMilli(calc->usage);
    // Upstream names Object AverageValue metrics with the External wording; kept verbatim.
    report.name = fmt::format("external metric {}({})", source.metric.name,
                              api::goDebugString(ptr(source.metric.selector)));
    report.proposal = calc->replicas;
    report.calculation = *calc;
    report.status = status;
    return std::nullopt;
  }
  Error e = Error::of(
      "invalid object metric source: neither a value target nor an average value target was set");
  return Failure{reason, e, e};
}

std::optional<Failure> Reconcile::evaluatePods(const api::PodsMetricSource& source,
                                               const api::Selector& metricSelector,
                                               const MetricInputs& in,
                                               report::MetricReport& report) {
  const std::string reason = failureReason(source);
  if (!source.target.averageValue) {
    Error e = Error::of("invalid pods metric source: an average value target was not set");
    return Failure{reason, e, e};
  }
  auto metrics = in.metrics->getRawMetric(source.metric.name, hpa_.metadata.namespace_,
                                          in.podSelector, metricSelector, metricsMaxAge());
  if (!metrics.ok()) {
    Error e = metrics.error().wrap(fmt::format("unable to get metric {}", source.metric.name));
    return Failure{reason, e, e};
  }
  auto pods = listPods(in.podSelector);
  if (!pods.ok()) {
    Error e = pods.error().wrap("unable to get pods while calculating replica count");
    return Failure{reason, e, e};
  }
  if (setup_.podFilter) keepListedPods(metrics->metrics, *pods);
  replicacalc::CalculatorOptions options{
      setup_.cpuInitializationPeriod.value_or(s_.options.cpuInitializationPeriod),
      setup_.initialReadinessDelay.value_or(s_.options.delayOfInitialReadinessStatus),
      s_.options.explainPods, replicacalc::RequestsSource::Spec, s_.options.decisionRules};
  replicacalc::PlainMetricInput input{in.scale.specReplicas,
                                      source.target.averageValue->milliValue(),
                                      "",
                                      tolerances_,
                                      *pods,
                                      std::move(metrics->metrics),
                                      metrics->timestamp,
                                      now_,
                                      options};
  auto calc = replicacalc::calcPlainMetricReplicas(input);
  if (!calc.ok()) return Failure{reason, calc.error(), calc.error()};
  api::MetricStatus status;
  status.type = api::kPodsMetric;
  status.pods = api::PodsMetricStatus{source.metric, {}};
  status.pods->current.averageValue = api::Quantity::fromMilli(calc->usage);
  report.name = fmt::format("pods metric {}", source.metric.name);
  report.proposal = calc->replicas;
  report.calculation = *calc;
  report.status = status;
  return std::nullopt;
}

namespace {

void setResourceStatus(api::MetricStatus& status, bool containerMetric, const std::string& resource,
                       const std::string& container, const api::MetricValueStatus& current) {
  if (containerMetric) {
    status.type = api::kContainerResourceMetric;
    status.containerResource = api::ContainerResourceMetricStatus{resource, current, container};
  } else {
    status.type = api::kResourceMetric;
    status.resource = api::ResourceMetricStatus{resource, current};
  }
}

// Upstream's name of a utilization metric (before 1.27 a ContainerResource metric was named as a
// Resource one: `container` false). Against limits (hpa-controller.io/requests-source: Limits)
// the name says so.
std::string utilizationMetricName(const std::string& resource, bool container,
                                  replicacalc::RequestsSource source) {
  const char* of = source == replicacalc::RequestsSource::Limits ? "limit" : "request";
  return container
             ? fmt::format("{} container resource utilization (percentage of {})", resource, of)
             : fmt::format("{} resource utilization (percentage of {})", resource, of);
}

}  // namespace

std::optional<Failure> Reconcile::evaluateResource(
    const std::string& reason, const std::string& resource, const std::string& container,
    bool containerMetric, const api::MetricTarget& target, const MetricInputs& in,
    report::MetricReport& report) {
  if (!target.averageValue && !target.averageUtilization) {
    return Failure::of(
        reason,
        Error::of("invalid resource metric source: neither an average utilization target nor "
                  "an average value (usage) target was set"));
  }
  const std::string what = target.averageValue ? "usage" : "utilization";
  auto failed = [&](const Error& e) {
    return std::optional<Failure>(
        Failure::of(reason, e.wrap(fmt::format("failed to get {} {}", resource, what))));
  };
  auto metrics = s_.deps.metrics.getResourceMetric(resource, hpa_.metadata.namespace_,
                                                   in.podSelector, container, metricsMaxAge());
  if (metrics.ok() && metrics->podWithoutContainer &&
      !s_.options.decisionRules.missingContainerIsMissingPod) {
    // Before 1.32 a pod whose metrics lack the named container failed the whole metric.
    metrics = Error::format(
        "failed to get container metrics: container {} not present in metrics for pod {}",
        container, *metrics->podWithoutContainer);
  }
  if (!metrics.ok()) {
    return failed(
        metrics.error().wrap(fmt::format("unable to get metrics for resource {}", resource)));
  }
  auto pods = listPods(in.podSelector);
  if (!pods.ok()) {
    return failed(pods.error().wrap("unable to get pods while calculating replica count"));
  }
  if (setup_.podFilter) keepListedPods(metrics->metrics, *pods);
  const auto& rules = s_.options.decisionRules;
  replicacalc::CalculatorOptions options{
      setup_.cpuInitializationPeriod.value_or(s_.options.cpuInitializationPeriod),
      setup_.initialReadinessDelay.value_or(s_.options.delayOfInitialReadinessStatus),
      s_.options.explainPods, setup_.requestsSource, rules};
  api::MetricValueStatus current;
  if (target.averageValue) {
    replicacalc::PlainMetricInput input{in.scale.specReplicas,
                                        target.averageValue->milliValue(),
                                        resource,
                                        tolerances_,
                                        *pods,
                                        std::move(metrics->metrics),
                                        metrics->timestamp,
                                        now_,
                                        options};
    auto calc = replicacalc::calcPlainMetricReplicas(input);
    if (!calc.ok()) return failed(calc.error());
    current.averageValue = buildQuantity(resource, calc->usage);
    report.name = fmt::format("{} resource", resource);
    report.proposal = calc->replicas;
    report.calculation = *calc;
  } else {
    s_.controls.requestsCounted(*this, {*pods, resource, container, rules});
    replicacalc::ResourceUtilizationInput input{in.scale.specReplicas,
                                                *target.averageUtilization,
                                                resource,
                                                container,
                                                tolerances_,
                                                *pods,
                                                std::move(metrics->metrics),
                                                metrics->timestamp,
                                                now_,
                                                options};
    auto calc = replicacalc::calcResourceUtilizationReplicas(input);
    if (!calc.ok()) return failed(calc.error());
    current.averageUtilization = calc->utilization;
    current.averageValue = buildQuantity(resource, calc->usage);
    report.name = utilizationMetricName(
        resource, containerMetric && rules.containerResourceMetricName, setup_.requestsSource);
    report.proposal = calc->replicas;
    report.calculation = *calc;
  }
  setResourceStatus(report.status, containerMetric, resource, container, current);
  return std::nullopt;
}

std::optional<Failure> Reconcile::evaluateExternal(const api::ExternalMetricSource& source,
                                                   const MetricInputs& in,
                                                   report::MetricReport& report) {
  const std::string reason = failureReason(source);
  const auto& target = source.target;
  const auto& name = source.metric.name;
  const std::string selectorText = api::goDebugString(ptr(source.metric.selector));
  const bool perPod = target.averageValue.has_value();
  if (!perPod && !target.value) {
    Error e = Error::of(
        "invalid external metric source: neither a value target nor an average value target was "
        "set");
    return Failure{reason, e, e};
  }
  auto wrapped = [&](const Error& e) {
    return perPod ? e.wrap(fmt::format("failed to get {} external metric", name))
                  : e.wrap(fmt::format("failed to get external metric {}", name));
  };
  auto metricSelector = api::Selector::fromLabelSelector(ptr(source.metric.selector));
  if (!metricSelector.ok())
    return Failure{reason, metricSelector.error(), wrapped(metricSelector.error())};
  auto values = in.metrics->getExternalMetric(name, hpa_.metadata.namespace_, *metricSelector);
  if (!values.ok()) {
    Error e = values.error().wrap(fmt::format("unable to get external metric {}/{}/{}",
                                              hpa_.metadata.namespace_, name, selectorText));
    return Failure{reason, e, wrapped(e)};
  }
  api::MetricStatus status;
  status.type = api::kExternalMetric;
  status.external = api::ExternalMetricStatus{source.metric, {}};
  if (perPod) {
    replicacalc::ExternalPerPodInput input{in.scale.statusReplicas,
                                           values->values,
                                           target.averageValue->milliValue(),
                                           tolerances_,
                                           in.scale.specReplicas,
                                           withinToleranceKeep()};
    auto calc = replicacalc::calcExternalPerPodReplicas(input);
    if (!calc.ok()) return Failure{reason, calc.error(), wrapped(calc.error())};
    status.external->current.averageValue = api::Quantity::fromMilli(calc->usage);
    report.proposal = calc->replicas;
    report.calculation = *calc;
  } else {
    auto pods = listPods(in.podSelector);
    replicacalc::ExternalValueInput input{
        in.scale.specReplicas,
        values->values,
        target.value->milliValue(),
        tolerances_,
        pods.ok() ? *pods : std::vector<const api::Pod*>{},
        pods.ok() ? std::nullopt : std::optional<Error>(pods.error())};
    auto calc = replicacalc::calcExternalValueReplicas(input);
    if (!calc.ok()) return Failure{reason, calc.error(), wrapped(calc.error())};
    status.external->current.value = api::Quantity::fromMilli(calc->usage);
    report.proposal = calc->replicas;
    report.calculation = *calc;
  }
  report.name = fmt::format("external metric {}({})", name, selectorText);
  report.status = status;
  return std::nullopt;
}

replicacalc::WithinToleranceKeep Reconcile::withinToleranceKeep() const {
  return s_.options.decisionRules.perPodWithinToleranceKeepsSpec
             ? replicacalc::WithinToleranceKeep::Spec
             : setup_.withinToleranceKeep;
}

Duration Reconcile::metricsMaxAge() const {
  return decide_.freshMetrics ? Duration::zero() : setup_.metricsMaxAge;
}

}  // namespace hpa::controller
