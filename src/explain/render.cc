#include "explain/render.h"

#include <fmt/format.h>

#include <cctype>
#include <functional>

#include "api/codec.h"
#include "api/metric_units.h"
#include "common/text.h"
#include "controls/last_decision.h"
#include "explain/metric_text.h"
#include "replicacalc/feature_gates.h"
#include "report/decision_summary.h"

namespace hpa::explain {
namespace {

using nlohmann::json;

json conditionOutcome(const replicacalc::ConditionOutcome& c) {
  return json{{"status", c.status}, {"reason", c.reason}, {"message", c.message}};
}

// Values in milli-units of the metric's unit, named so (usageMilli with unit "bytes": 50Mi is
// 52428800000), exact for tools; the text form shows them as people read them.
json calculationJson(const replicacalc::Calculation& c, api::MetricUnit unit) {
  json out{{"unit", api::unitName(unit)},
           {"usageMilli", c.usage},
           {"usageRatio", c.usageRatio},
           {"readyPods", c.readyPodCount},
           {"decision", c.decision}};
  if (c.utilization) out["utilization"] = *c.utilization;
  if (c.rebalancedRatio) out["rebalancedRatio"] = *c.rebalancedRatio;
  if (c.timestamp != Time{}) out["metricsTimestamp"] = formatRFC3339(c.timestamp);
  if (!c.pods.empty()) {
    json pods = json::array();
    for (const auto& p : c.pods) {
      json pod{{"name", p.name},
               {"group", asciiLower(replicacalc::podGroupName(p.group))},
               {"reason", p.reason}};
      if (p.value) pod["valueMilli"] = *p.value;
      if (p.request) pod["requestMilli"] = *p.request;
      if (p.assumedValue) pod["assumedValueMilli"] = *p.assumedValue;
      pods.push_back(std::move(pod));
    }
    out["pods"] = std::move(pods);
  }
  return out;
}

json metricJson(const report::MetricReport& m, api::MetricUnit unit) {
  json out{{"type", m.type}, {"name", m.name}};
  if (!m.source.empty()) out["source"] = m.source;
  out["proposal"] = m.proposal ? json(*m.proposal) : json(nullptr);
  if (m.error) {
    out["error"] = *m.error;
    out["conditionReason"] = m.conditionReason;
  }
  if (m.fallback) {
    out["fallback"] = {{"metric", m.fallback->metric},
                       {"failures", m.fallback->run.failures},
                       {"failingSince", formatRFC3339(m.fallback->run.since)},
                       {"replicas", m.fallback->replicas}};
  }
  if (m.calculation) out["calculation"] = calculationJson(*m.calculation, unit);
  if (!m.status.type.empty()) out["current"] = api::encodeMetricStatus(m.status);
  return out;
}

// "150% of request, 150m per pod" and the like, from a status entry, in the metric's unit
// (utilization is of the limit for an HPA whose requests source is Limits).
std::string currentText(const api::MetricValueStatus& v, api::MetricUnit unit, const char* of) {
  std::vector<std::string> parts;
  if (v.averageUtilization) parts.push_back(fmt::format("{}% of {}", *v.averageUtilization, of));
  if (v.averageValue)
    parts.push_back(fmt::format("{} per pod", api::formatQuantity(*v.averageValue, unit)));
  if (v.value) parts.push_back(fmt::format("{} in total", api::formatQuantity(*v.value, unit)));
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string metricCurrent(const api::MetricStatus& s, api::MetricUnit unit, const char* of) {
  const auto* current = api::currentOf(s);
  return current ? currentText(*current, unit, of) : "-";
}

std::string replicaBounds(const std::optional<std::int32_t>& min,
                          const std::optional<std::int32_t>& max) {
  if (min && max) return fmt::format("minReplicas {}, maxReplicas {}", *min, *max);
  return min ? fmt::format("minReplicas {}", *min) : fmt::format("maxReplicas {}", max.value_or(0));
}

json optionalReplicas(const std::optional<std::int32_t>& r) { return r ? json(*r) : json(nullptr); }

// hpa-controller.io/schedule: the windows as written, the open ones, the bounds they made and
// the next opening.
json scheduleJson(const controls::ControlsReport& r, Time now) {
  json windows = json::array();
  for (const auto& w : r.controls.schedule) {
    windows.push_back({{"name", w.name},
                       {"start", w.start},
                       {"duration", formatGoDuration(w.duration)},
                       {"timeZone", w.timeZone},
                       {"minReplicas", optionalReplicas(w.minReplicas)},
                       {"maxReplicas", optionalReplicas(w.maxReplicas)}});
  }
  json out{{"windows", std::move(windows)}};
  json open = json::array();
  if (r.schedule) {
    for (const auto& w : r.schedule->open) {
      open.push_back({{"name", w.name},
                      {"openedAt", formatRFC3339(w.openedAt)},
                      {"closesAt", formatRFC3339(w.closesAt)},
                      {"minReplicas", optionalReplicas(w.minReplicas)},
                      {"maxReplicas", optionalReplicas(w.maxReplicas)}});
    }
    out["minReplicas"] = r.schedule->minReplicas;
    out["maxReplicas"] = r.schedule->maxReplicas;
    out["minReplicasFrom"] =
        r.schedule->minFrom.empty() ? json(nullptr) : json(r.schedule->minFrom);
    out["maxReplicasFrom"] =
        r.schedule->maxFrom.empty() ? json(nullptr) : json(r.schedule->maxFrom);
    out["held"] = r.schedule->held;
  }
  out["open"] = std::move(open);
  auto next = controls::nextOpening(r.controls.schedule, now);
  out["next"] = next ? json{{"name", next->window->name}, {"opensAt", formatRFC3339(next->at)}}
                     : json(nullptr);
  return out;
}

json optionalNumber(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// hpa-controller.io/forecast: the forecast, the floor it makes and whether it acted, or why none.
json forecastJson(const controls::ControlsReport::Forecast& f) {
  return json{{"mode", controls::forecastModeName(f.mode)},
              {"metric", f.metric},
              {"query", f.query},
              {"lead", formatGoDuration(f.lead)},
              {"leadFrom", f.leadFrom},
              {"startup", f.startup ? json(formatGoDuration(*f.startup)) : json(nullptr)},
              {"at", f.at ? json(formatRFC3339(*f.at)) : json(nullptr)},
              {"value", optionalNumber(f.value)},
              {"confidence", f.value ? json(f.confidence) : json(nullptr)},
              {"cycle", f.cycle.empty() ? json(nullptr) : json(f.cycle)},
              {"recentRatio", optionalNumber(f.recentRatio)},
              {"perPodTarget", optionalNumber(f.perPodTarget)},
              {"floor", optionalReplicas(f.floor)},
              {"minReplicas", f.minReplicas},
              {"maxReplicas", f.maxReplicas},
              {"reason", f.reason},
              {"message", f.message},
              {"raised", f.raised},
              {"held", f.held},
              {"reused", f.reused}};
}

// One entry per metric: where it is read from, null for its default API (only with the control).
json metricSourcesJson(const std::vector<std::optional<api::MetricRoute>>& routes) {
  json out = json::array();
  for (const auto& route : routes) {
    out.push_back(route ? json(api::describeRoute(*route)) : json(nullptr));
  }
  return out;
}

json controlsJson(const controls::ControlsReport& r, Time now) {
  const auto& c = r.controls;
  json out{
      {"syncPeriod", c.syncPeriod ? json(formatGoDuration(*c.syncPeriod)) : json(nullptr)},
      {"syncPeriodSource", c.syncPeriod ? c.syncPeriodSource : std::string("global")},
      {"paused", c.pause != controls::Pause::None},
      {"pause", controls::pauseName(c.pause)},
      {"podSelection", controls::podSelectionName(c.podSelection)},
      {"requestsSource", controls::requestsSourceName(c.requestsSource)},
      {"fallback", c.fallback ? json(controls::formatFallback(*c.fallback)) : json(nullptr)},
      {"recordDecision", c.recordDecision},
      {"cpuInitializationPeriod", c.cpuInitializationPeriod
                                      ? json(formatGoDuration(*c.cpuInitializationPeriod))
                                      : json(nullptr)},
      {"initialReadinessDelay",
       c.initialReadinessDelay ? json(formatGoDuration(*c.initialReadinessDelay)) : json(nullptr)},
      {"withinToleranceKeep", controls::withinToleranceKeepName(c.withinToleranceKeep)}};
  if (r.pausedScaleTo) out["pausedScaleTo"] = *r.pausedScaleTo;
  json resizing = json::array();
  for (const auto& p : r.resizingPods) {
    resizing.push_back({{"pod", p.pod},
                        {"resource", p.resource},
                        {"unit", api::unitName(api::unitOfResource(p.resource))},
                        {"specRequestMilli", p.specRequest},
                        {"actuatedRequestMilli", p.actuatedRequest}});
  }
  out["resizingPods"] = std::move(resizing);
  out["podsNotOwned"] = r.podsNotOwned;
  out["schedule"] = c.schedule.empty() ? json(nullptr) : scheduleJson(r, now);
  if (!c.metricRoutes.empty()) out["metricSources"] = metricSourcesJson(c.metricRoutes);
  if (r.forecast) out["forecast"] = forecastJson(*r.forecast);
  json errors = json::array();
  for (const auto& e : c.errors) {
    errors.push_back(
        {{"control", e.control}, {"value", e.value}, {"reason", e.reason}, {"message", e.message}});
  }
  out["errors"] = std::move(errors);
  return out;
}

// The controls section of the text form: one line per control that departs from upstream.
void scheduleText(const report::ReconcileReport& r, Time now,
                  const std::function<void(std::string)>& line) {
  const auto& c = r.controls.controls;
  line(
      fmt::format("  schedule ({}): {} windows", controls::kScheduleAnnotation, c.schedule.size()));
  if (r.controls.schedule) {
    for (const auto& w : r.controls.schedule->open) {
      line(fmt::format("    open: {} since {} until {} ({})", w.name, formatRFC3339(w.openedAt),
                       formatRFC3339(w.closesAt), replicaBounds(w.minReplicas, w.maxReplicas)));
    }
    const auto& s = *r.controls.schedule;
    if (!s.minFrom.empty() || !s.maxFrom.empty()) {
      line(fmt::format("    bounds now: min {}{}, max {}{}{}", s.minReplicas,
                       s.minFrom.empty() ? "" : fmt::format(" (from {})", s.minFrom), s.maxReplicas,
                       s.maxFrom.empty() ? "" : fmt::format(" (from {})", s.maxFrom),
                       s.held ? "; a window's bound decided the size" : ""));
    }
  }
  if (auto next = controls::nextOpening(c.schedule, now)) {
    line(fmt::format("    next: {} opens at {} for {} ({})", next->window->name,
                     formatRFC3339(next->at), formatGoDuration(next->window->duration),
                     replicaBounds(next->window->minReplicas, next->window->maxReplicas)));
  } else {
    line("    next: no window opens within a year");
  }
}

// What the forecast did: acted, was outdone by reactive scaling, or only previewed.
std::string forecastEffect(const controls::ControlsReport::Forecast& f) {
  if (f.mode == controls::ForecastMode::Preview) return "preview: the decision is unchanged";
  if (f.held) return "the floor decided the size";
  if (f.raised)
    return "the floor raised the metrics' proposal; stabilization or a limit kept the size";
  return "the metrics' proposal was at or above the floor";
}

void forecastText(const controls::ControlsReport::Forecast& f,
                  const std::function<void(std::string)>& line) {
  line(fmt::format("  forecast ({}, {}): {} from {}", controls::kForecastAnnotation,
                   controls::forecastModeName(f.mode), f.metric,
                   f.query.empty() ? std::string("-") : f.query));
  if (f.reason == api::kInvalidForecast) {
    line(fmt::format("    no forecast ({}): {}", f.reason, f.message));
    return;
  }
  line(f.startup ? fmt::format("    lead {}: {} {} + sync period + metrics resolution + step",
                               formatGoDuration(f.lead), f.leadFrom, formatGoDuration(*f.startup))
                 : fmt::format("    lead {} (from the {})", formatGoDuration(f.lead), f.leadFrom));
  if (!f.value) {
    line(fmt::format("    no floor ({}): {}", f.reason, f.message));
    return;
  }
  line(fmt::format("    forecast {:g} at {}: {} cycle, confidence {:.2f}{}", *f.value,
                   f.at ? formatRFC3339(*f.at) : std::string("-"), f.cycle, f.confidence,
                   f.reused ? " (made earlier in this step)" : ""));
  if (f.recentRatio) line("    " + controls::recentWords(*f.recentRatio, f.recent));
  if (!f.floor) {
    line(fmt::format("    no floor ({}): {}", f.reason, f.message));
    return;
  }
  line(fmt::format("    floor {} replicas ({:g} per pod, within min {} and max {}); {}", *f.floor,
                   f.perPodTarget.value_or(0), f.minReplicas, f.maxReplicas, forecastEffect(f)));
}

void pauseText(const report::ReconcileReport& r, const std::function<void(std::string)>& line) {
  const controls::Pause pause = r.controls.controls.pause;
  if (pause == controls::Pause::Both) {
    line(r.controls.pausedScaleTo
             ? fmt::format(
                   "  paused ({}): would scale {} from {} to {} replicas; the scale is left alone",
                   controls::kPausedAnnotation, r.scaleTarget, r.currentReplicas,
                   *r.controls.pausedScaleTo)
             : fmt::format("  paused ({}): nothing to hold back", controls::kPausedAnnotation));
    return;
  }
  const bool up = pause == controls::Pause::ScaleUp;
  const char* held = up ? "scale-up" : "scale-down";
  line(r.controls.pausedScaleTo
           ? fmt::format("  {} paused ({}: {}): would scale {} from {} to {} replicas; the "
                         "scale is left alone ({} stays live)",
                         held, controls::kPausedAnnotation, controls::pauseName(pause),
                         r.scaleTarget, r.currentReplicas, *r.controls.pausedScaleTo,
                         up ? "scale-down" : "scale-up")
           : fmt::format("  {} paused ({}: {}): no {} to hold back", held,
                         controls::kPausedAnnotation, controls::pauseName(pause), held));
}

// The start-up windows this HPA sets (the cpu readiness rules of pod grouping).
void startupText(const controls::HpaControls& c, const std::function<void(std::string)>& line) {
  if (c.cpuInitializationPeriod) {
    const std::string period = formatGoDuration(*c.cpuInitializationPeriod);
    line(
        fmt::format("  cpu initialization period {} ({}): for cpu, a pod started less than {} "
                    "ago counts only once ready for a full metric window",
                    period, controls::kCpuInitializationPeriodAnnotation, period));
  }
  if (c.initialReadinessDelay) {
    const std::string delay = formatGoDuration(*c.initialReadinessDelay);
    line(
        fmt::format("  initial readiness delay {} ({}): for cpu, a pod not ready whose readiness "
                    "last changed within {} of its start counts as never ready (unready)",
                    delay, controls::kInitialReadinessDelayAnnotation, delay));
  }
}

void controlsText(const report::ReconcileReport& r, Time now,
                  const std::function<void(std::string)>& line) {
  const auto& c = r.controls.controls;
  line("controls:");
  if (c.syncPeriod)
    line(fmt::format("  sync period {} ({})", formatGoDuration(*c.syncPeriod), c.syncPeriodSource));
  if (c.pause != controls::Pause::None) pauseText(r, line);
  if (c.podSelection != controls::PodSelection::LabelSelector) {
    line(fmt::format(
        "  pod selection {} ({}): {} pods of the label selector not controlled by {}{}{}",
        controls::podSelectionName(c.podSelection), controls::kPodSelectionAnnotation,
        r.controls.podsNotOwned.size(), r.scaleTarget, r.controls.podsNotOwned.empty() ? "" : ": ",
        fmt::join(r.controls.podsNotOwned, ", ")));
  }
  if (c.requestsSource == replicacalc::RequestsSource::Limits) {
    line(
        fmt::format("  requests source Limits ({}): utilization against the containers' limits, "
                    "not their requests",
                    controls::kRequestsSourceAnnotation));
  } else if (c.requestsSource != replicacalc::RequestsSource::Spec ||
             !r.controls.resizingPods.empty()) {
    line(fmt::format("  requests source {}: {} pods with a resize in progress",
                     controls::requestsSourceName(c.requestsSource),
                     r.controls.resizingPods.size()));
    const bool actuated = c.requestsSource == replicacalc::RequestsSource::Actuated;
    for (const auto& p : r.controls.resizingPods) {
      const auto unit = api::unitOfResource(p.resource);
      line(fmt::format("    {} {}: counted {} ({}), spec {}, actuated {}", p.pod, p.resource,
                       api::formatMilli(actuated ? p.actuatedRequest : p.specRequest, unit),
                       actuated ? "actuated" : "spec", api::formatMilli(p.specRequest, unit),
                       api::formatMilli(p.actuatedRequest, unit)));
    }
  }
  if (c.fallback) {
    line(fmt::format("  fallback ({}): {}", controls::kFallbackAnnotation,
                     controls::formatFallback(*c.fallback)));
  }
  if (!c.schedule.empty()) scheduleText(r, now, line);
  if (c.recordDecision) {
    line(fmt::format("  records its decisions ({}) in {}", controls::kRecordDecisionAnnotation,
                     controls::kLastDecisionAnnotation));
  }
  if (c.cpuInitializationPeriod || c.initialReadinessDelay) startupText(c, line);
  if (c.withinToleranceKeep == replicacalc::WithinToleranceKeep::Spec) {
    line(
        fmt::format("  within the tolerance, per-pod Object and External targets keep "
                    "spec.replicas ({}: Spec), not status.replicas, which counts a rollout's "
                    "surge pods",
                    controls::kWithinToleranceKeepAnnotation));
  }
  for (std::size_t i = 0; i < c.metricRoutes.size(); ++i) {
    if (!c.metricRoutes[i]) continue;
    line(fmt::format("  metric {} read from {} ({})", i + 1, api::describeRoute(*c.metricRoutes[i]),
                     controls::kMetricSourcesAnnotation));
  }
  if (r.controls.forecast) forecastText(*r.controls.forecast, line);
  for (const auto& e : c.errors) line(fmt::format("  invalid ({}): {}", e.reason, e.message));
}

// What the daemon last recorded (hpa-controller.io/last-decision), as written: the live answer
// above may differ, and the difference is often the question.
void recordedDecisionText(const json& d, const std::function<void(std::string)>& line) {
  // Anyone can edit an annotation: every field is read without trusting its type.
  auto text = [](const json& object, const char* field) {
    if (!object.is_object() || !object.contains(field)) return std::string("-");
    const json& v = object[field];
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  const std::string why = d.contains("reason") ? text(d, "reason") : text(d, "branch");
  const std::string limit =
      d.contains("limitedBy") ? "; limited by " + text(d["limitedBy"], "reason") : "";
  line(fmt::format("recorded decision ({}):", controls::kLastDecisionAnnotation));
  line(fmt::format("  at {}: {} -> {} replicas ({}){}", text(d, "time"), text(d, "currentReplicas"),
                   text(d, "desiredReplicas"), why, limit));
  if (d.contains("forecast")) {
    const json& f = d["forecast"];
    line(fmt::format("  forecast ({} {}): {} of {}, confidence {}, floor {}", text(f, "mode"),
                     text(f, "reason"), text(f, "value"), text(f, "metric"), text(f, "confidence"),
                     text(f, "floor")));
  }
}

// A metric name whose selector could not be made readable (an invalid one) still carries Go's
// dump of it; a table has no room for that.
std::string shortMetricName(std::string name) {
  for (const char* noise : {"(&LabelSelector", "(nil)"}) {
    if (auto at = name.find(noise); at != std::string::npos) name.erase(at);
  }
  return name.empty() ? "-" : name;
}

// The metrics section of the text form: each metric's current value in its unit, the rule that
// gave its proposal, and the pods that were not counted as ready.
void metricsText(const Explanation& e, const std::function<void(std::string)>& line) {
  const auto& r = e.report;
  if (!r.metrics.empty()) line("metrics:");
  const char* of = r.controls.controls.requestsSource == replicacalc::RequestsSource::Limits
                       ? "limit"
                       : "request";
  for (size_t i = 0; i < r.metrics.size(); ++i) {
    const auto& m = r.metrics[i];
    const auto unit = unitAt(e.metricSpecs, i);
    std::string head = readableMetricText(m.name.empty() ? m.type : m.name, e.metricSpecs);
    if (!m.source.empty()) head += fmt::format(" (from {})", m.source);
    if (m.error) {
      line(fmt::format("  - {}: FAILED ({}): {}", head, m.conditionReason,
                       readableMetricText(*m.error, e.metricSpecs)));
      if (m.fallback) {
        line(fmt::format("      fallback: failing since {} ({} failed syncs): proposes {} replicas",
                         formatRFC3339(m.fallback->run.since), m.fallback->run.failures,
                         m.fallback->replicas));
      }
      continue;
    }
    line(fmt::format("  - {}: current {} -> {} replicas", head, metricCurrent(m.status, unit, of),
                     m.proposal ? std::to_string(*m.proposal) : std::string("-")));
    if (!m.calculation) continue;
    const auto& c = *m.calculation;
    line(fmt::format("      {}", c.decision));
    if (c.pods.empty()) continue;
    int counts[4] = {0, 0, 0, 0};
    for (const auto& p : c.pods) ++counts[static_cast<int>(p.group)];
    line(fmt::format("      pods: {} ready, {} unready, {} missing, {} ignored", counts[0],
                     counts[1], counts[2], counts[3]));
    for (const auto& p : c.pods) {
      if (p.group == replicacalc::PodGroup::Ready) continue;
      line(fmt::format(
          "        {} {}: {}{}", asciiLower(replicacalc::podGroupName(p.group)), p.name, p.reason,
          p.assumedValue ? fmt::format(" (assumed {})", api::formatMilli(*p.assumedValue, unit))
                         : std::string()));
    }
  }
}

// The release whose rules decided, its feature gates, and what it does with fields it does not
// know or allow.
json rulesJson(const Explanation& e) {
  json gates = json::object();
  for (const auto& g : replicacalc::hpaFeatureGates()) {
    if (e.rules.minor >= g.sinceMinor) gates[std::string(g.name)] = e.rules.gates.*g.gate;
  }
  return json{{"release", e.rules.release()},
              {"featureGates", std::move(gates)},
              {"notes", e.report.rulesNotes}};
}

// The rules line of the text form: only where they are not the newest release's defaults, or the
// HPA uses a field they do not know or allow.
void rulesText(const Explanation& e, const std::function<void(std::string)>& line) {
  const bool newest = e.rules == replicacalc::DecisionRules{};
  if (newest && e.report.rulesNotes.empty()) return;
  std::vector<std::string> changed;
  const auto defaults = replicacalc::defaultFeatureGates(e.rules.minor);
  for (const auto& g : replicacalc::hpaFeatureGates()) {
    if (e.rules.minor >= g.sinceMinor && e.rules.gates.*g.gate != defaults.*g.gate) {
      changed.push_back(fmt::format("{}={}", g.name, e.rules.gates.*g.gate));
    }
  }
  line(fmt::format(
      "  rules: kube-controller-manager {}'s{}", e.rules.release(),
      changed.empty() ? "" : fmt::format(" with feature gates {}", fmt::join(changed, ","))));
  for (const auto& note : e.report.rulesNotes) line(fmt::format("    note: {}", note));
}

}  // namespace

std::string explanationsTable(const std::vector<Explanation>& explanations, bool withNamespace) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"NAME", "REPLICAS", "METRIC", "WHY"});
  if (withNamespace) rows.front().insert(rows.front().begin(), "NAMESPACE");
  for (const auto& e : explanations) {
    const auto s = report::summarize(e.report);
    const auto slash = e.hpaKey.find('/');
    std::vector<std::string> row{e.hpaKey.substr(slash + 1),
                                 s.rescale ? fmt::format("{} -> {}", s.current, s.next)
                                           : fmt::format("{} (kept)", s.current),
                                 shortMetricName(readableMetricText(s.metric, e.metricSpecs)),
                                 readableMetricText(s.why, e.metricSpecs)};
    if (withNamespace) row.insert(row.begin(), e.hpaKey.substr(0, slash));
    rows.push_back(std::move(row));
  }
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      out += i + 1 < row.size() ? fmt::format("{:<{}}   ", row[i], widths[i]) : row[i];
    }
    out += '\n';
  }
  return out;
}

nlohmann::json explanationToJson(const Explanation& e) {
  const auto& r = e.report;
  json out{{"hpa", e.hpaKey},
           {"now", formatRFC3339Nano(e.now)},
           {"branch", report::branchName(r.branch)},
           {"scaleTarget", r.scaleTarget},
           {"currentReplicas", r.currentReplicas},
           {"minReplicas", r.minReplicas},
           {"maxReplicas", r.maxReplicas},
           {"desiredReplicas", r.desiredReplicas},
           {"rescale", r.rescale},
           {"reason", r.reason},
           {"decisionRules", rulesJson(e)}};
  if (r.metricReplicas) {
    out["metricReplicas"] = *r.metricReplicas;
    out["metricName"] = r.metricName;
  }
  json metrics = json::array();
  for (size_t i = 0; i < r.metrics.size(); ++i)
    metrics.push_back(metricJson(r.metrics[i], unitAt(e.metricSpecs, i)));
  out["metrics"] = std::move(metrics);
  if (r.normalization) {
    const auto& n = *r.normalization;
    json norm{{"proposed", n.proposed},
              {"stabilized", n.stabilized},
              {"desired", n.desired},
              {"upWindowSeconds", n.upWindowSeconds},
              {"downWindowSeconds", n.downWindowSeconds},
              {"ableToScale", conditionOutcome(n.ableToScale)},
              {"scalingLimited", conditionOutcome(n.scalingLimited)}};
    if (n.scaleUpLimit) norm["scaleUpLimit"] = *n.scaleUpLimit;
    if (n.scaleDownLimit) norm["scaleDownLimit"] = *n.scaleDownLimit;
    out["normalization"] = std::move(norm);
  } else {
    out["normalization"] = nullptr;
  }
  out["status"] = api::encodeHorizontalPodAutoscalerStatus(r.status);
  out["statusChanged"] = r.statusChanged;
  json events = json::array();
  for (const auto& ev : r.events)
    events.push_back({{"type", ev.type}, {"reason", ev.reason}, {"message", ev.message}});
  out["events"] = std::move(events);
  // Only for HPAs with controls, so upstream-only HPAs explain exactly as before.
  if (r.controls.controls.any()) out["controls"] = controlsJson(r.controls, e.now);
  out["history"] = r.history ? api::encodeAutoscalerHistory(*r.history) : json(nullptr);
  out["historyGiven"] = e.historyGiven;
  if (e.scaleUpdate) out["scaleUpdate"] = api::encodeScale(*e.scaleUpdate);
  if (e.recordedDecision) out["recordedDecision"] = *e.recordedDecision;
  if (!r.error.empty()) out["error"] = r.error;
  return out;
}

std::string explanationToText(const Explanation& e) {
  const auto& r = e.report;
  std::string out;
  auto line = [&out](const std::string& s) {
    out += s;
    out += '\n';
  };
  if (r.rescale) {
    line(fmt::format(
        "{}: scale {} from {} to {} replicas{}", e.hpaKey, r.scaleTarget, r.currentReplicas,
        r.desiredReplicas,
        r.reason.empty() ? "" : fmt::format(" ({})", readableMetricText(r.reason, e.metricSpecs))));
  } else {
    line(fmt::format("{}: keep {} at {} replicas{}", e.hpaKey,
                     r.scaleTarget.empty() ? "the target" : r.scaleTarget, r.currentReplicas,
                     r.controls.pausedScaleTo
                         ? fmt::format(" ({}: would scale to {})",
                                       controls::pauseWords(r.controls.controls.pause),
                                       *r.controls.pausedScaleTo)
                         : std::string()));
  }
  line(fmt::format("  decided by: {} (min {}, max {}) at {}", report::branchName(r.branch),
                   r.minReplicas, r.maxReplicas, formatRFC3339(e.now)));
  rulesText(e, line);
  metricsText(e, line);
  if (r.normalization) {
    const auto& n = *r.normalization;
    line(fmt::format("normalization: proposed {}, stabilized {}, desired {}", n.proposed,
                     n.stabilized, n.desired));
    line(fmt::format("  AbleToScale {} {}: {}", n.ableToScale.status, n.ableToScale.reason,
                     n.ableToScale.message));
    line(fmt::format("  ScalingLimited {} {}: {}", n.scalingLimited.status, n.scalingLimited.reason,
                     n.scalingLimited.message));
  }
  if (r.controls.controls.any()) controlsText(r, e.now, line);
  if (e.recordedDecision) recordedDecisionText(*e.recordedDecision, line);
  line("conditions:");
  for (const auto& c : r.status.conditions)
    line(fmt::format("  {} {} {}: {}", c.type, c.status, c.reason, c.message));
  if (!r.events.empty()) {
    line("events:");
    for (const auto& ev : r.events)
      line(fmt::format("  {} {}: {}", ev.type, ev.reason, ev.message));
  }
  if (!r.error.empty()) line(fmt::format("error: {}", r.error));
  return out;
}

}  // namespace hpa::explain
