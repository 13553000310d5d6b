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
  return api::Quantity::fromMilli(milli, resource == "memory" ? api::QuantityFormat::BinarySI
                                                              : api::QuantityFormat::DecimalSI);
}

std::string joinKeys(const std::vector<std::string>& keys) {
  std::string out = "[";
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) out += ' ';
    out += keys[i];
  }
  return out + "]";
}

const api::LabelSelector* ptr(const std::optional<api::LabelSelector>& s) { return s ? &*s : nullptr; }

// A failed metric has no computed name; its spec says which one it is.
std::string metricSpecLabel(const api::MetricSpec& m) {
  if (m.resource) return fmt::format("{} resource", m.resource->name);
  if (m.containerResource) {
    return fmt::format("{} resource of container {}", m.containerResource->name, m.containerResource->container);
  }
  if (m.pods) return fmt::format("{} pods metric", m.pods->metric.name);
  if (m.object) return fmt::format("{} object metric", m.object->metric.name);
  if (m.external) return fmt::format("{} external metric", m.external->metric.name);
  return m.type;
}

}  // namespace

api::HorizontalPodAutoscalerCondition HorizontalController::Reconcile::unableToCompute(const std::string& reason,
                                                                                        const Error& error) {
  event(kEventWarning, reason, error.message);
  return api::HorizontalPodAutoscalerCondition{
      api::kScalingActive, api::kConditionFalse, std::nullopt, reason,
      fmt::format("the HPA was unable to compute the replica count: {}", error.message), std::nullopt};
}

Result<api::Selector> HorizontalController::Reconcile::validateAndParseSelector(const std::string& selectorText) {
  if (selectorText.empty()) {
    const std::string msg = "selector is required";
    event(kEventWarning, "SelectorRequired", msg);
    condition(api::kScalingActive, api::kConditionFalse, "InvalidSelector", "the HPA target's scale is missing a selector");
    return Error::of(msg);
  }
  auto selector = api::Selector::parse(selectorText);
  if (!selector.ok()) {
    std::string msg =
        fmt::format("couldn't convert selector into a corresponding internal selector object: {}", selector.error().message);
    event(kEventWarning, "InvalidSelector", msg);
    condition(api::kScalingActive, api::kConditionFalse, "InvalidSelector", msg);
    return Error::of(msg);
  }
  if (!c_.selectors_.update(key_, *selector)) {
    return Error::format("HPA {}/{} was deleted during reconciliation", hpa_.metadata.namespace_, hpa_.metadata.name);
  }
  auto pods = listPods(*selector);
  if (!pods.ok()) return pods.error();
  auto selecting = c_.selectors_.hpasSelectingAny(hpa_.metadata.namespace_, *pods, 2);
  if (selecting.size() > 1) {
    std::string msg = fmt::format("pods by selector {} are controlled by multiple HPAs: {}", selectorText, joinKeys(selecting));
    event(kEventWarning, "AmbiguousSelector", msg);
    condition(api::kScalingActive, api::kConditionFalse, "AmbiguousSelector", msg);
    return Error::of(msg);
  }
  return selector;
}

namespace {

// Pod -> ReplicaSet -> Deployment is the longest chain of the built-in kinds; a few more levels
// allow for operators that own Deployments, while a cycle of owners cannot loop.
constexpr int kMaxOwnerChain = 5;

// Owner-based selection counts the listed pods only; the metrics API answered for the label
// selector, so the other pods' values go too.
void keepListedPods(replicacalc::PodMetricsInfo& metrics, const std::vector<const api::Pod*>& pods) {
  std::unordered_set<std::string_view> listed;
  for (const auto* p : pods) listed.insert(p->name);
  metrics.eraseIf([&](const auto& entry) { return !listed.contains(entry.first); });
}

}  // namespace

Result<bool> HorizontalController::Reconcile::controlledByTarget(const api::Pod& pod) {
  const auto& target = hpa_.spec.scaleTargetRef;
  std::optional<api::PodOwner> owner = pod.controller;
  for (int depth = 0; owner && depth < kMaxOwnerChain; ++depth) {
    if (owner->kind == target.kind && owner->name == target.name) return true;
    if (!c_.deps_.owners) return false;
    auto up = c_.deps_.owners->controllerOf(hpa_.metadata.namespace_, owner->kind, owner->name);
    if (!up.ok()) return up.error();
    owner = *up ? std::optional<api::PodOwner>(api::PodOwner{(*up)->kind, (*up)->name}) : std::nullopt;
  }
  return false;
}

Result<std::vector<const api::Pod*>> HorizontalController::Reconcile::listPods(const api::Selector& selector) {
  if (lastListedSelector_ && *lastListedSelector_ == selector) return lastListed_;
  auto listed = c_.deps_.pods.list(hpa_.metadata.namespace_, selector);
  if (!listed.ok()) return listed.error();
  const auto& all = **listed;
  std::vector<const api::Pod*> pods;
  pods.reserve(all.size());
  const bool byOwner = controls_.podSelection == PodSelection::OwnerReferences;
  auto& notOwned = report_.controls.podsNotOwned;
  const Time createdBefore = decide_ && decide_->podsCreatedBefore ? *decide_->podsCreatedBefore : Time::max();
  // The reconcile's first touch of its pods: the prefetch makes the selection, metrics and
  // calculator after it find them cached.
  const api::PodListPrefetcher prefetch(all);
  for (std::size_t i = 0; i < all.size(); ++i) {
    prefetch.before(i);
    const auto& p = all[i];
    if (p->creationTimestamp && *p->creationTimestamp >= createdBefore) continue;
    if (byOwner) {
      auto owned = controlledByTarget(*p);
      if (!owned.ok()) return owned.error().wrap(fmt::format("resolving the owners of pod {}", p->name));
      if (!*owned) {
        if (std::find(notOwned.begin(), notOwned.end(), p->name) == notOwned.end()) notOwned.push_back(p->name);
        continue;
      }
    }
    pods.push_back(p.get());
  }
  listedPods_.push_back(std::move(*listed));
  lastListedSelector_ = selector;
  lastListed_ = pods;
  return pods;
}

HorizontalController::Reconcile::MetricsOutcome HorizontalController::Reconcile::computeReplicasForMetrics(
    const api::Scale& scale) {
  MetricsOutcome outcome;
  auto selector = validateAndParseSelector(scale.selector);
  if (!selector.ok()) {
    outcome.error = selector.error();
    return outcome;
  }
  const auto& specs = hpa_.spec.metrics;
  if (specs.empty()) {
    // API defaulting always adds the CPU metric; an object without metrics cannot reach here
    // from a server, and must not scale on nothing.
    Error err = Error::of("no metrics specified");
    condition(api::kScalingActive, api::kConditionFalse, "InvalidMetricSourceType",
              "the HPA was unable to compute the replica count: no metrics specified");
    outcome.error = err;
    return outcome;
  }
  MetricInputs in{scale, *selector};
  outcome.statuses.resize(specs.size());
  report_.metrics.resize(specs.size());

  int invalidCount = 0;
  int fallbackCount = 0;
  std::optional<Error> firstError;
  api::HorizontalPodAutoscalerCondition firstCondition;
  std::int32_t replicas = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    auto& mr = report_.metrics[i];
    mr.type = specs[i].type;
    api::HorizontalPodAutoscalerCondition failure;
    auto started = std::chrono::steady_clock::now();
    auto error = computeReplicasForMetric(specs[i], in, mr, failure);
    outcome.statuses[i] = mr.status;
    if (!error) metricSucceeded(i);

    std::string action = kActionNone;
    if (!error && mr.proposal) {
      if (*mr.proposal > originalStatus_.currentReplicas) action = kActionScaleUp;
      if (*mr.proposal < originalStatus_.currentReplicas) action = kActionScaleDown;
    }
    std::string errorLabel = !error ? kErrorNone : (isSpecError(*error) ? kErrorSpec : kErrorInternal);
    c_.deps_.observer->metricComputation(
        action, errorLabel, std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - started), mr.type);

    if (error && !fallBack(i, *error, scale.specReplicas, mr)) {
      if (invalidCount == 0) {
        firstCondition = failure;
        firstError = error;
      }
      ++invalidCount;
      continue;
    }
    if (mr.fallback) ++fallbackCount;
    if (replicas == 0 || *mr.proposal > replicas) {  // max; ties keep the earlier metric
      replicas = *mr.proposal;
      outcome.metricName = mr.fallback ? fmt::format("{} (fallback)", mr.fallback->metric) : mr.name;
    }
  }

  if (firstError) {
    outcome.error = firstError->wrap(
        fmt::format("invalid metrics ({} invalid out of {}), first error is", invalidCount, specs.size()));
  }
  // All metrics failed, or some failed and the rest would scale down: do nothing.
  if (invalidCount >= static_cast<int>(specs.size()) || (invalidCount > 0 && replicas < scale.specReplicas)) {
    condition(firstCondition.type, firstCondition.status, firstCondition.reason, firstCondition.message);
    outcome.replicas = -1;
    outcome.metricName.clear();
    reportFallbackTransitions(0);
    return outcome;
  }
  condition(api::kScalingActive, api::kConditionTrue, "ValidMetricFound",
            fmt::format("the HPA was able to successfully calculate a replica count from {}", outcome.metricName));
  reportFallbackTransitions(fallbackCount);
  outcome.replicas = replicas;
  return outcome;
}

bool HorizontalController::Reconcile::fallBack(std::size_t index, const Error& error, std::int32_t currentReplicas,
                                               MetricReport& report) {
  if (!controls_.fallback || isSpecError(error)) return false;  // a wrong spec is not an outage
  const auto& spec = *controls_.fallback;
  // A decision that keeps nothing sees one failure: its own.
  const FailureRun run = decide_ ? FailureRun{now_, 1}
                                 : c_.metricFailures_.failed(key_, index, hpa_.spec.metrics.size(), now_);
  if (!fallbackDue(spec, run, now_)) return false;
  report.fallback = FallbackReport{metricSpecLabel(hpa_.spec.metrics[index]), run, fallbackReplicas(spec, currentReplicas)};
  report.proposal = report.fallback->replicas;
  return true;
}

void HorizontalController::Reconcile::metricSucceeded(std::size_t index) {
  if (controls_.fallback && !decide_) c_.metricFailures_.succeeded(key_, index);
}

std::optional<Error> HorizontalController::Reconcile::computeReplicasForMetric(
    const api::MetricSpec& spec, const MetricInputs& in, MetricReport& report,
    api::HorizontalPodAutoscalerCondition& failureCondition) {
  // Records a failure: the metric's event and condition, and the dispatcher's wrapping.
  auto fail = [&](const std::string& reason, const Error& conditionError, const Error& returned) {
    failureCondition = unableToCompute(reason, conditionError);
    report.error = conditionError.message;
    report.conditionReason = reason;
    return std::optional<Error>(returned);
  };
  // Upstream dereferences the source without a check (API validation guarantees it); a missing
  // source here is reported like an invalid target instead of crashing.
  auto missingSource = [&](const char* reason, const char* what) {
    Error e = Error::format("invalid {} metric source: the {} field is not set", what, what);
    return fail(reason, e, e);
  };

  if (spec.type == api::kObjectMetric) {
    if (!spec.object) return missingSource("FailedGetObjectMetric", "object");
    auto metricSelector = api::Selector::fromLabelSelector(ptr(spec.object->metric.selector));
    if (!metricSelector.ok()) {
      return fail("FailedGetObjectMetric", metricSelector.error(),
                  metricSelector.error().wrap("failed to get object metric value"));
    }
    if (auto f = evaluateObject(*spec.object, *metricSelector, in, report)) {
      return fail(f->reason, f->conditionError, f->returned.wrap("failed to get object metric value"));
    }
    return std::nullopt;
  }
  if (spec.type == api::kPodsMetric) {
    if (!spec.pods) return missingSource("FailedGetPodsMetric", "pods");
    auto metricSelector = api::Selector::fromLabelSelector(ptr(spec.pods->metric.selector));
    if (!metricSelector.ok()) {
      return fail("FailedGetPodsMetric", metricSelector.error(),
                  metricSelector.error().wrap("failed to get pods metric value"));
    }
    if (auto f = evaluatePods(*spec.pods, *metricSelector, in, report)) {
      return fail(f->reason, f->conditionError, f->returned.wrap("failed to get pods metric value"));
    }
    return std::nullopt;
  }
  if (spec.type == api::kResourceMetric) {
    if (!spec.resource) return missingSource("FailedGetResourceMetric", "resource");
    if (auto e = evaluateResource(spec.resource->name, "", false, spec.resource->target, in, report)) {
      return fail("FailedGetResourceMetric", *e,
                  e->wrap(fmt::format("failed to get {} resource metric value", spec.resource->name)));
    }
    return std::nullopt;
  }
  if (spec.type == api::kContainerResourceMetric) {
    if (!spec.containerResource) return missingSource("FailedGetContainerResourceMetric", "containerResource");
    const auto& src = *spec.containerResource;
    if (auto e = evaluateResource(src.name, src.container, true, src.target, in, report)) {
      return fail("FailedGetContainerResourceMetric", *e,
                  e->wrap(fmt::format("failed to get {} container metric value", src.container)));
    }
    return std::nullopt;
  }
  if (spec.type == api::kExternalMetric) {
    if (!spec.external) return missingSource("FailedGetExternalMetric", "external");
    if (auto f = evaluateExternal(*spec.external, in, report)) {
      return fail(f->reason, f->conditionError,
                  f->returned.wrap(fmt::format("failed to get {} external metric value", spec.external->metric.name)));
    }
    return std::nullopt;
  }
  Error e = specError(Error::format("unknown metric source type {}", quote(spec.type)));
  return fail("InvalidMetricSourceType", e, e);
}

std::optional<HorizontalController::Reconcile::MetricFailure> HorizontalController::Reconcile::evaluateObject(
    const api::ObjectMetricSource& source, const api::Selector& metricSelector, const MetricInputs& in,
    MetricReport& report) {
  const std::string reason = "FailedGetObjectMetric";
  api::MetricStatus status;
  status.type = api::kObjectMetric;
  status.object = api::ObjectMetricStatus{source.metric, {}, source.describedObject};
  const auto& target = source.target;
  auto fetch = [&]() -> Result<metricsclient::ObjectMetricResult> {
    auto r = c_.deps_.metrics.getObjectMetric(source.metric.name, hpa_.metadata.namespace_, source.describedObject,
                                              metricSelector);
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
    if (!usage.ok()) return MetricFailure{reason, usage.error(), usage.error()};
    auto pods = listPods(in.podSelector);
    replicacalc::ObjectValueInput input{in.scale.specReplicas, usage->value, target.value->milliValue(), tolerances_,
                                        pods.ok() ? *pods : std::vector<const api::Pod*>{},
                                        pods.ok() ? std::nullopt : std::optional<Error>(pods.error())};
    auto calc = replicacalc::calcObjectValueReplicas(input);
    if (!calc.ok()) return MetricFailure{reason, calc.error(), calc.error()};
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
      return MetricFailure{reason, usage.error(),
                           usage.error().wrap(fmt::format("failed to get {} object metric", source.metric.name))};
    }
    replicacalc::ObjectPerPodInput input{in.scale.statusReplicas, usage->value, target.averageValue->milliValue(),
                                         tolerances_};
    auto calc = replicacalc::calcObjectPerPodReplicas(input);
    if (!calc.ok()) {
      return MetricFailure{reason, calc.error(),
                           calc.error().wrap(fmt::format("failed to get {} object metric", source.metric.name))};
    }
    status.object->current.averageValue = api::Quantity::fromMilli(calc->usage);
    // Upstream names Object AverageValue metrics with the External wording; kept verbatim.
    report.name = fmt::format("external metric {}({})", source.metric.name, api::goDebugString(ptr(source.metric.selector)));
    report.proposal = calc->replicas;
    report.calculation = *calc;
    report.status = status;
    return std::nullopt;
  }
  Error e = Error::of("invalid object metric source: neither a value target nor an average value target was set");
  return MetricFailure{reason, e, e};
}

std::optional<HorizontalController::Reconcile::MetricFailure> HorizontalController::Reconcile::evaluatePods(
    const api::PodsMetricSource& source, const api::Selector& metricSelector, const MetricInputs& in,
    MetricReport& report) {
  const std::string reason = "FailedGetPodsMetric";
  if (!source.target.averageValue) {
    Error e = Error::of("invalid pods metric source: an average value target was not set");
    return MetricFailure{reason, e, e};
  }
  auto metrics =
      c_.deps_.metrics.getRawMetric(source.metric.name, hpa_.metadata.namespace_, in.podSelector, metricSelector,
                                    metricsMaxAge());
  if (!metrics.ok()) {
    Error e = metrics.error().wrap(fmt::format("unable to get metric {}", source.metric.name));
    return MetricFailure{reason, e, e};
  }
  auto pods = listPods(in.podSelector);
  if (!pods.ok()) {
    Error e = pods.error().wrap("unable to get pods while calculating replica count");
    return MetricFailure{reason, e, e};
  }
  if (controls_.podSelection == PodSelection::OwnerReferences) keepListedPods(metrics->metrics, *pods);
  replicacalc::PlainMetricInput input{in.scale.specReplicas, source.target.averageValue->milliValue(), "", tolerances_,
                                      *pods, std::move(metrics->metrics), metrics->timestamp, now_,
                                      replicacalc::CalculatorOptions{c_.options_.cpuInitializationPeriod,
                                                                     c_.options_.delayOfInitialReadinessStatus,
                                                                     c_.options_.explainPods}};
  auto calc = replicacalc::calcPlainMetricReplicas(input);
  if (!calc.ok()) return MetricFailure{reason, calc.error(), calc.error()};
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

std::optional<Error> HorizontalController::Reconcile::evaluateResource(const std::string& resource,
                                                                      const std::string& container,
                                                                      bool containerMetric,
                                                                      const api::MetricTarget& target,
                                                                      const MetricInputs& in, MetricReport& report) {
  if (!target.averageValue && !target.averageUtilization) {
    return Error::of(
        "invalid resource metric source: neither an average utilization target nor an average value (usage) target "
        "was set");
  }
  const std::string what = target.averageValue ? "usage" : "utilization";
  auto failed = [&](const Error& e) {
    return std::optional<Error>(e.wrap(fmt::format("failed to get {} {}", resource, what)));
  };
  auto metrics =
      c_.deps_.metrics.getResourceMetric(resource, hpa_.metadata.namespace_, in.podSelector, container, metricsMaxAge());
  if (!metrics.ok()) {
    return failed(metrics.error().wrap(fmt::format("unable to get metrics for resource {}", resource)));
  }
  auto pods = listPods(in.podSelector);
  if (!pods.ok()) {
    return failed(pods.error().wrap("unable to get pods while calculating replica count"));
  }
  if (controls_.podSelection == PodSelection::OwnerReferences) keepListedPods(metrics->metrics, *pods);
  replicacalc::CalculatorOptions options{c_.options_.cpuInitializationPeriod, c_.options_.delayOfInitialReadinessStatus,
                                         c_.options_.explainPods, controls_.requestsSource};
  api::MetricValueStatus current;
  if (target.averageValue) {
    replicacalc::PlainMetricInput input{in.scale.specReplicas, target.averageValue->milliValue(), resource, tolerances_,
                                        *pods, std::move(metrics->metrics), metrics->timestamp, now_, options};
    auto calc = replicacalc::calcPlainMetricReplicas(input);
    if (!calc.ok()) return failed(calc.error());
    current.averageValue = buildQuantity(resource, calc->usage);
    report.name = fmt::format("{} resource", resource);
    report.proposal = calc->replicas;
    report.calculation = *calc;
  } else {
    noteResizingPods(*pods, resource, container);
    replicacalc::ResourceUtilizationInput input{in.scale.specReplicas, *target.averageUtilization, resource, container,
                                                tolerances_, *pods, std::move(metrics->metrics), metrics->timestamp,
                                                now_, options};
    auto calc = replicacalc::calcResourceUtilizationReplicas(input);
    if (!calc.ok()) return failed(calc.error());
    current.averageUtilization = calc->utilization;
    current.averageValue = buildQuantity(resource, calc->usage);
    report.name = containerMetric
                      ? fmt::format("{} container resource utilization (percentage of request)", resource)
                      : fmt::format("{} resource utilization (percentage of request)", resource);
    report.proposal = calc->replicas;
    report.calculation = *calc;
  }
  if (containerMetric) {
    report.status.type = api::kContainerResourceMetric;
    report.status.containerResource = api::ContainerResourceMetricStatus{resource, current, container};
  } else {
    report.status.type = api::kResourceMetric;
    report.status.resource = api::ResourceMetricStatus{resource, current};
  }
  return std::nullopt;
}

void HorizontalController::Reconcile::noteResizingPods(const std::vector<const api::Pod*>& pods,
                                                       const std::string& resource, const std::string& container) {
  auto& noted = report_.controls.resizingPods;
  for (const api::Pod* pod : pods) {
    if (!replicacalc::resizeInProgress(*pod, container, resource)) continue;
    auto spec = replicacalc::podRequest(*pod, container, resource, replicacalc::RequestsSource::Spec);
    auto actuated = replicacalc::podRequest(*pod, container, resource, replicacalc::RequestsSource::Actuated);
    if (!spec.ok() || !actuated.ok()) continue;
    ControlsReport::ResizingPod entry{pod->name, resource, *spec, *actuated};
    if (std::find(noted.begin(), noted.end(), entry) == noted.end()) noted.push_back(std::move(entry));
  }
}

std::optional<HorizontalController::Reconcile::MetricFailure> HorizontalController::Reconcile::evaluateExternal(
    const api::ExternalMetricSource& source, const MetricInputs& in, MetricReport& report) {
  const std::string reason = "FailedGetExternalMetric";
  const auto& target = source.target;
  const auto& name = source.metric.name;
  const std::string selectorText = api::goDebugString(ptr(source.metric.selector));
  const bool perPod = target.averageValue.has_value();
  if (!perPod && !target.value) {
    Error e = Error::of("invalid external metric source: neither a value target nor an average value target was set");
    return MetricFailure{reason, e, e};
  }
  auto wrapped = [&](const Error& e) {
    return perPod ? e.wrap(fmt::format("failed to get {} external metric", name))
                  : e.wrap(fmt::format("failed to get external metric {}", name));
  };
  auto metricSelector = api::Selector::fromLabelSelector(ptr(source.metric.selector));
  if (!metricSelector.ok()) return MetricFailure{reason, metricSelector.error(), wrapped(metricSelector.error())};
  auto values = c_.deps_.metrics.getExternalMetric(name, hpa_.metadata.namespace_, *metricSelector);
  if (!values.ok()) {
    Error e = values.error().wrap(fmt::format("unable to get external metric {}/{}/{}", hpa_.metadata.namespace_, name, selectorText));
    return MetricFailure{reason, e, wrapped(e)};
  }
  api::MetricStatus status;
  status.type = api::kExternalMetric;
  status.external = api::ExternalMetricStatus{source.metric, {}};
  if (perPod) {
    replicacalc::ExternalPerPodInput input{in.scale.statusReplicas, values->values, target.averageValue->milliValue(),
                                           tolerances_};
    auto calc = replicacalc::calcExternalPerPodReplicas(input);
    if (!calc.ok()) return MetricFailure{reason, calc.error(), wrapped(calc.error())};
    status.external->current.averageValue = api::Quantity::fromMilli(calc->usage);
    report.proposal = calc->replicas;
    report.calculation = *calc;
  } else {
    auto pods = listPods(in.podSelector);
    replicacalc::ExternalValueInput input{in.scale.specReplicas, values->values, target.value->milliValue(), tolerances_,
                                          pods.ok() ? *pods : std::vector<const api::Pod*>{},
                                          pods.ok() ? std::nullopt : std::optional<Error>(pods.error())};
    auto calc = replicacalc::calcExternalValueReplicas(input);
    if (!calc.ok()) return MetricFailure{reason, calc.error(), wrapped(calc.error())};
    status.external->current.value = api::Quantity::fromMilli(calc->usage);
    report.proposal = calc->replicas;
    report.calculation = *calc;
  }
  report.name = fmt::format("external metric {}({})", name, selectorText);
  report.status = status;
  return std::nullopt;
}

Duration HorizontalController::Reconcile::metricsMaxAge() const {
  if (decide_ && decide_->freshMetrics) return Duration::zero();
  return controls_.syncPeriod.value_or(c_.options_.syncPeriod) / 2;
}

}  // namespace hpa::controller
