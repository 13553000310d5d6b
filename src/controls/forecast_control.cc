#include "controls/forecast_control.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "api/conditions.h"
#include "replicacalc/requests.h"

namespace hpa::controls {
namespace {

using Forecast = ControlsReport::Forecast;

const char* kLeadFromAnnotation = "annotation";
const char* kLeadFromStartup = "pods' start-up";
const char* kLeadFromReadinessDelay = "initial readiness delay";

// Whether the utilization metric counted here is the one forecast (its requests are the ones the
// target's percentage applies to).
bool countsForecastMetric(const api::MetricSpec& spec, const CountedRequests& counted) {
  const auto* target = api::targetOf(spec);
  if (!target || !target->averageUtilization) return false;
  if (const auto* r = spec.as<api::ResourceMetricSource>())
    return counted.container.empty() && r->name == counted.resource;
  if (const auto* c = spec.as<api::ContainerResourceMetricSource>())
    return c->name == counted.resource && c->container == counted.container;
  return false;
}

// The mean request of the pods that count (not deleted, not finished), in the metric's unit.
std::optional<double> meanRequest(const CountedRequests& counted,
                                  replicacalc::RequestsSource source) {
  double total = 0;
  int pods = 0;
  for (const api::Pod* pod : counted.pods) {
    if (pod->deletionTimestamp || pod->phase == api::kPodFailed || pod->phase == api::kPodSucceeded)
      continue;
    auto request =
        replicacalc::podRequest(*pod, counted.container, counted.resource, source, counted.rules);
    if (!request.ok()) continue;
    total += static_cast<double>(*request) / 1000.0;
    ++pods;
  }
  if (pods == 0) return std::nullopt;
  return total / pods;
}

std::optional<Duration> median(std::vector<Duration> values) {
  if (values.empty()) return std::nullopt;
  auto middle = values.begin() + static_cast<long>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// The metric's target per pod, in its unit: a Utilization target of the pods' mean request, or
// the AverageValue.
std::optional<double> perPodTarget(const api::MetricSpec& spec, const Forecast& f) {
  const auto* target = api::targetOf(spec);
  if (!target) return std::nullopt;
  if (target->type == api::kUtilizationTarget && target->averageUtilization) {
    if (!f.meanRequest) return std::nullopt;
    return *target->averageUtilization / 100.0 * *f.meanRequest;
  }
  if (target->averageValue) return target->averageValue->asApproximateFloat();
  return std::nullopt;
}

// ceil(value / perPod) within the bounds; a value a hair above a whole number of pods (floating
// point) does not ask for one more.
std::int32_t floorReplicas(double value, double perPod, std::int32_t min, std::int32_t max) {
  const double pods = std::ceil(value / perPod - 1e-9);
  if (!(pods > min)) return min;  // NaN too
  if (pods >= max) return max;
  return static_cast<std::int32_t>(pods);
}

std::string forecastWords(const Forecast& f) {
  const std::string recent =
      f.recentRatio ? ", " + recentWords(*f.recentRatio, f.recent) : std::string();
  return fmt::format("{} forecast {:g} in {} ({} cycle, confidence {:g}{})", f.metric,
                     roundForecastValue(*f.value), formatGoDuration(f.lead), f.cycle,
                     roundConfidence(f.confidence), recent);
}

// The Forecast condition's reason and message once the forecast is known.
void describe(Forecast& f) {
  if (!f.floor) {
    f.reason = api::kNoForecast;
    f.message = fmt::format("{}, but no floor: the pods' {} requests were not counted",
                            forecastWords(f), f.metric);
    return;
  }
  if (f.mode == ForecastMode::Active) {
    f.reason = api::kForecastFloor;
    f.message =
        fmt::format("{} needs {} replicas: the floor is {}", forecastWords(f), *f.floor, *f.floor);
  } else {
    f.reason = api::kForecastPreview;
    f.message = fmt::format(
        "preview: {} would set a floor of {} replicas; the decision is "
        "unchanged",
        forecastWords(f), *f.floor);
  }
}

// The annotation's error, when it is invalid.
const ControlError* forecastError(const HpaControls& controls) {
  for (const auto& e : controls.errors) {
    if (e.control == kForecastAnnotation) return &e;
  }
  return nullptr;
}

void noFloor(Forecast& f, const char* reason, std::string message) {
  f.reason = reason;
  f.message = std::move(message);
}

}  // namespace

void ForecastControl::beforeMetrics(ReconcileView& reconcile, MetricsSetup& setup) {
  const auto& controls = reconcile.controls();
  const auto& key = reconcile.key();
  if (!controls.forecast && reconcile.keepsState()) {
    // No longer asked for (or invalid): what is held for the HPA goes.
    std::lock_guard<std::mutex> lock(mu_);
    if (hpas_.erase(key) > 0 && history_) history_->forget(key);
  }
  const ControlError* invalid = forecastError(controls);
  if (!controls.forecast && !invalid) return;
  Forecast f;
  f.minReplicas = setup.minReplicas;
  f.maxReplicas = setup.maxReplicas;
  if (controls.forecast) {
    f.mode = controls.forecast->mode;
    f.metric = controls.forecast->metric;
    f.query = controls.forecast->query;
  } else {
    f.evaluated = true;
    noFloor(f, api::kInvalidForecast, invalid->message);
  }
  reconcile.controlsReport().forecast = std::move(f);
}

void ForecastControl::requestsCounted(ReconcileView& reconcile, const CountedRequests& counted) {
  auto& f = reconcile.controlsReport().forecast;
  const auto& spec = reconcile.controls().forecast;
  if (!f || !spec) return;
  for (const api::Pod* pod : counted.pods) {
    if (!pod->ready || pod->ready->status != api::kConditionTrue || !pod->creationTimestamp ||
        !pod->ready->lastTransitionTime ||
        *pod->ready->lastTransitionTime < *pod->creationTimestamp)
      continue;
    f->startups.push_back(*pod->ready->lastTransitionTime - *pod->creationTimestamp);
  }
  const auto& metrics = reconcile.hpa().spec.metrics;
  if (spec->metricIndex < metrics.size() &&
      countsForecastMetric(metrics[spec->metricIndex], counted))
    f->meanRequest = meanRequest(counted, reconcile.controls().requestsSource);
}

void ForecastControl::afterMetrics(ReconcileView& reconcile, bool /*decided*/) {
  evaluate(reconcile);
}

void ForecastControl::afterProposal(ReconcileView& reconcile, Proposal::Stage stage,
                                    Proposal& proposal) {
  if (!reconcile.controlsReport().forecast) return;
  evaluate(reconcile);
  if (stage == Proposal::Stage::FromMetrics) raiseToFloor(reconcile, proposal);
  if (stage == Proposal::Stage::Normalized) settleLimit(reconcile, proposal);
}

void ForecastControl::beforeWrite(ReconcileView& reconcile) {
  auto& f = reconcile.controlsReport().forecast;
  if (!f) {
    // Not asked for: the condition goes. Asked for, on a path before the bounds were known (the
    // scale could not be read): it stays as the last sync that knew left it.
    const bool asked = reconcile.controls().forecast || forecastError(reconcile.controls());
    if (!asked && reconcile.conditionNow(api::kForecastCondition))
      reconcile.dropCondition(api::kForecastCondition);
    return;
  }
  evaluate(reconcile);
  const bool floorShown = f->reason == api::kForecastFloor || f->reason == api::kForecastPreview;
  reconcile.condition(api::kForecastCondition,
                      floorShown ? api::kConditionTrue : api::kConditionFalse, f->reason,
                      f->message);
}

void ForecastControl::forget(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    hpas_.erase(key);
  }
  if (history_) history_->forget(key);
}

void ForecastControl::setLead(ReconcileView& reconcile, const ForecastSpec& spec, Forecast& f) {
  if (spec.lead) {
    f.lead = *spec.lead;
    f.leadFrom = kLeadFromAnnotation;
    return;
  }
  const auto observed = median(f.startups);
  // Whole seconds: a lead that moves by a millisecond would make a new forecast.
  f.startup = std::chrono::ceil<std::chrono::seconds>(observed ? *observed
                                                               : reconcile.initialReadinessDelay());
  f.leadFrom = observed ? kLeadFromStartup : kLeadFromReadinessDelay;
  // A forecast serves every sync of its step, and a replica asked for at the step's last sync
  // must serve the load a start-up after it: so the lead reaches to the step's end.
  f.lead = *f.startup + reconcile.syncPeriod() + kMetricsResolution + spec.options().step;
}

void ForecastControl::evaluate(ReconcileView& reconcile) {
  auto& report = reconcile.controlsReport();
  if (!report.forecast || report.forecast->evaluated) return;
  Forecast& f = *report.forecast;
  f.evaluated = true;
  const ForecastSpec& spec = *reconcile.controls().forecast;
  setLead(reconcile, spec, f);
  f.at = reconcile.now() + f.lead;
  if (!history_) {
    noFloor(f, api::kNoForecastHistory,
            fmt::format("no history of {}: the controller has no history source", f.metric));
    return;
  }
  const auto options = spec.options();
  const HistoryRequest request{reconcile.key(), spec.metric, spec.query, options.maxHistory,
                               options.step};
  auto history = history_->history(request, reconcile.now());
  if (reconcile.keepsState()) {
    std::lock_guard<std::mutex> lock(mu_);
    hpas_.try_emplace(reconcile.key());
  }
  if (!history.ok()) {
    noFloor(f, api::kNoForecastHistory,
            fmt::format("no history of {}: {}", f.metric, history.error().message));
    return;
  }
  const Inputs in{reconcile.key(), spec, f.lead, reconcile.now(), reconcile.keepsState()};
  const auto result = forecastFor(in, *history, f.reused);
  if (!result->prediction) {
    noFloor(f, api::kNoForecast, fmt::format("no forecast of {}: {}", f.metric, result->message));
    return;
  }
  f.value = result->prediction->value;
  f.confidence = result->prediction->confidence;
  f.cycle = std::string(forecast::cycleName(result->prediction->cycle));
  if (result->prediction->adjusted) {
    f.recentRatio = result->prediction->recentRatio;
    f.recent = options.recent;
  }
  const auto& metrics = reconcile.hpa().spec.metrics;
  if (spec.metricIndex < metrics.size())
    f.perPodTarget = perPodTarget(metrics[spec.metricIndex], f);
  if (f.perPodTarget && *f.perPodTarget > 0)
    f.floor = floorReplicas(*f.value, *f.perPodTarget, f.minReplicas, f.maxReplicas);
  describe(f);
}

std::shared_ptr<const forecast::ForecastResult> ForecastControl::forecastFor(const Inputs& in,
                                                                             const History& history,
                                                                             bool& reused) {
  const auto options = in.spec.options();
  const std::int64_t step = in.now.time_since_epoch() / options.step;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = hpas_.find(in.key);
    if (it != hpas_.end() && it->second) {
      const Cached& c = *it->second;
      if (c.version == history.version && c.step == step && c.lead == in.lead &&
          c.spec == in.spec) {
        reused = true;
        return c.result;
      }
    }
  }
  // Made outside the lock: the forecaster serves several HPAs at once.
  std::span<const forecast::Sample> samples;
  if (history.samples) samples = *history.samples;
  auto result = std::make_shared<const forecast::ForecastResult>(
      forecaster_.forecast(samples, in.now, in.lead, options));
  if (in.keep) {
    std::lock_guard<std::mutex> lock(mu_);
    hpas_[in.key] = Cached{in.spec, in.lead, history.version, step, result};
  }
  return result;
}

void ForecastControl::raiseToFloor(ReconcileView& reconcile, Proposal& proposal) {
  const Forecast& f = *reconcile.controlsReport().forecast;
  if (f.mode != ForecastMode::Active || !f.floor || proposal.desiredReplicas >= *f.floor) return;
  proposal.desiredReplicas = *f.floor;
  reconcile.controlsReport().forecast->raised = true;
  if (proposal.desiredReplicas != proposal.currentReplicas)
    proposal.reason = fmt::format("the forecast of {} needs {} replicas", f.metric, *f.floor);
  api::HorizontalPodAutoscalerCondition limited;
  limited.type = api::kScalingLimited;
  limited.status = api::kConditionTrue;
  limited.reason = api::kForecastFloor;
  limited.message = fmt::format("the desired replica count is less than the forecast floor {} ({})",
                                *f.floor, forecastWords(f));
  proposal.limit = Proposal::Limit{*f.floor, std::move(limited)};
}

void ForecastControl::settleLimit(ReconcileView& reconcile, const Proposal& proposal) {
  auto& f = *reconcile.controlsReport().forecast;
  // Stabilization or a policy may have kept the size elsewhere: then the floor did not decide.
  if (!f.raised || !proposal.limit || proposal.limit->condition.reason != api::kForecastFloor ||
      proposal.desiredReplicas != proposal.limit->replicas)
    return;
  f.held = true;
  const auto& c = proposal.limit->condition;
  reconcile.condition(c.type, c.status, c.reason, c.message);
}

}  // namespace hpa::controls
