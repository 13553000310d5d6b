#include "controls/hpa_controls.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "common/quote.h"
#include "controls/schedule_cache.h"

namespace hpa::controls {
namespace {

const std::string* annotation(const api::HorizontalPodAutoscaler& hpa, const char* key) {
  auto it = hpa.metadata.annotations.find(key);
  return it == hpa.metadata.annotations.end() ? nullptr : &it->second;
}

// The values Go's strconv.ParseBool takes, as `kubectl annotate` users write them.
std::optional<bool> parseBool(const std::string& text) {
  static constexpr std::array<const char*, 6> kTrue = {"1", "t", "T", "TRUE", "true", "True"};
  static constexpr std::array<const char*, 6> kFalse = {"0", "f", "F", "FALSE", "false", "False"};
  for (const char* t : kTrue) {
    if (text == t) return true;
  }
  for (const char* f : kFalse) {
    if (text == f) return false;
  }
  return std::nullopt;
}

std::string periodRange() {
  return fmt::format("must be between {} and {}", formatGoDuration(kMinSyncPeriod),
                     formatGoDuration(kMaxSyncPeriod));
}

void readSyncPeriod(const api::HorizontalPodAutoscaler& hpa, HpaControls& out) {
  auto reject = [&](const std::string& control, const std::string& value, const std::string& why) {
    out.errors.push_back({control, value, api::kInvalidSyncPeriod,
                          fmt::format("{} {} is invalid: {}; the global sync period applies",
                                      control, quote(value), why)});
  };
  // The upstream field, where the server has it, wins over the annotation.
  if (hpa.spec.syncPeriodSeconds) {
    const auto period = std::chrono::seconds(*hpa.spec.syncPeriodSeconds);
    if (period < kMinSyncPeriod || period > kMaxSyncPeriod) {
      reject(kSyncPeriodField, std::to_string(*hpa.spec.syncPeriodSeconds), periodRange());
      return;
    }
    out.syncPeriod = period;
    out.syncPeriodSource = kSyncPeriodField;
    return;
  }
  const std::string* text = annotation(hpa, kSyncPeriodAnnotation);
  if (!text) return;
  auto period = parseGoDuration(*text);
  if (!period.ok()) {
    reject(kSyncPeriodAnnotation, *text, period.error().message);
    return;
  }
  if (*period < kMinSyncPeriod || *period > kMaxSyncPeriod) {
    reject(kSyncPeriodAnnotation, *text, periodRange());
    return;
  }
  out.syncPeriod = *period;
  out.syncPeriodSource = kSyncPeriodAnnotation;
}

// What the annotations other than the sync period's read into HpaControls, in the order their
// errors are reported.
struct ReadContext {
  const api::HorizontalPodAutoscaler& hpa;
  ScheduleCache* schedules;
};

struct AnnotationControl {
  const char* key;
  // Reads the value into `out`; the error says what is wrong with it, in the user's terms.
  Status (*read)(const std::string& text, const ReadContext& context, HpaControls& out);
  const char* instead;  // what applies while the value is invalid
  bool quotesValue;     // the error repeats the value (a schedule's YAML is too long to)
};

Status readFlag(const std::string& text, bool& out) {
  auto value = parseBool(text);
  if (!value) return Error::of("must be true or false");
  out = *value;
  return Status();
}

Status readPause(const std::string& text, const ReadContext&, HpaControls& out) {
  if (auto flag = parseBool(text)) {
    out.pause = *flag ? Pause::Both : Pause::None;
    return Status();
  }
  for (auto direction : {Pause::ScaleUp, Pause::ScaleDown}) {
    if (text == pauseName(direction)) {
      out.pause = direction;
      return Status();
    }
  }
  return Error::of("must be true, false, ScaleUp (no scale-up) or ScaleDown (no scale-down)");
}

Status readPodSelection(const std::string& text, const ReadContext&, HpaControls& out) {
  for (auto selection : {PodSelection::LabelSelector, PodSelection::OwnerReferences}) {
    if (text == podSelectionName(selection)) {
      out.podSelection = selection;
      return Status();
    }
  }
  return Error::of("must be LabelSelector or OwnerReferences");
}

Status readRequestsSource(const std::string& text, const ReadContext&, HpaControls& out) {
  for (auto source : {replicacalc::RequestsSource::Spec, replicacalc::RequestsSource::Actuated,
                      replicacalc::RequestsSource::Limits}) {
    if (text == requestsSourceName(source)) {
      out.requestsSource = source;
      return Status();
    }
  }
  return Error::of("must be Spec, Actuated or Limits");
}

Status readWithinToleranceKeep(const std::string& text, const ReadContext&, HpaControls& out) {
  for (auto keep :
       {replicacalc::WithinToleranceKeep::Status, replicacalc::WithinToleranceKeep::Spec}) {
    if (text == withinToleranceKeepName(keep)) {
      out.withinToleranceKeep = keep;
      return Status();
    }
  }
  return Error::of("must be Status or Spec");
}

Status readFallback(const std::string& text, const ReadContext&, HpaControls& out) {
  auto fallback = parseFallback(text);
  if (!fallback.ok()) return fallback.error();
  out.fallback = *fallback;
  return Status();
}

// With a cache, the schedule is parsed once per change of its text and HPA (the reconcile's case).
Status readSchedule(const std::string& text, const ReadContext& context, HpaControls& out) {
  const auto& meta = context.hpa.metadata;
  const auto schedule =
      context.schedules ? context.schedules->get(api::objectKey(meta.namespace_, meta.name), text)
                        : std::make_shared<const ScheduleCache::Parsed>(parseSchedule(text));
  if (!schedule->ok()) return schedule->error();
  out.schedule = **schedule;
  return Status();
}

// A start-up window: a Go duration from 0s to kMaxStartupWindow.
Status readStartupWindow(const std::string& text, std::optional<Duration>& out) {
  auto window = parseGoDuration(text);
  if (!window.ok()) return window.error();
  if (*window < Duration::zero() || *window > kMaxStartupWindow)
    return Error::format("must be between 0s and {}", formatGoDuration(kMaxStartupWindow));
  out = *window;
  return Status();
}

Status readMetricSources(const std::string& text, const ReadContext& context, HpaControls& out) {
  auto routes = parseMetricSources(text, context.hpa.spec.metrics);
  if (!routes.ok()) return routes.error();
  out.metricRoutes = std::move(*routes);
  return Status();
}

Status readForecast(const std::string& text, const ReadContext& context, HpaControls& out) {
  auto spec = parseForecast(text, context.hpa);
  if (!spec.ok()) return spec.error();
  out.forecast = std::move(*spec);
  return Status();
}

const AnnotationControl kAnnotationControls[] = {
    {kPausedAnnotation, readPause, "scaling is not paused", true},
    {kPodSelectionAnnotation, readPodSelection, "LabelSelector applies", true},
    {kRequestsSourceAnnotation, readRequestsSource, "Spec applies", true},
    {kRecordDecisionAnnotation,
     [](const std::string& t, const ReadContext&, HpaControls& o) {
       return readFlag(t, o.recordDecision);
     },
     "decisions are not recorded", true},
    {kFallbackAnnotation, readFallback, "failed metrics block the decision as without it", true},
    {kScheduleAnnotation, readSchedule, "the HPA's own minReplicas and maxReplicas apply", false},
    {kCpuInitializationPeriodAnnotation,
     [](const std::string& t, const ReadContext&, HpaControls& o) {
       return readStartupWindow(t, o.cpuInitializationPeriod);
     },
     "--horizontal-pod-autoscaler-cpu-initialization-period applies", true},
    {kInitialReadinessDelayAnnotation,
     [](const std::string& t, const ReadContext&, HpaControls& o) {
       return readStartupWindow(t, o.initialReadinessDelay);
     },
     "--horizontal-pod-autoscaler-initial-readiness-delay applies", true},
    {kWithinToleranceKeepAnnotation, readWithinToleranceKeep, "Status applies", true},
    {kMetricSourcesAnnotation, readMetricSources, "every metric is read from its default API",
     false},
    {kForecastAnnotation, readForecast, "no forecast and no floor", false},
};

}  // namespace

const char* podSelectionName(PodSelection selection) {
  switch (selection) {
    case PodSelection::LabelSelector:
      return "LabelSelector";
    case PodSelection::OwnerReferences:
      return "OwnerReferences";
  }
  return "";
}

const char* pauseName(Pause pause) {
  switch (pause) {
    case Pause::None:
      return "false";
    case Pause::Both:
      return "true";
    case Pause::ScaleUp:
      return "ScaleUp";
    case Pause::ScaleDown:
      return "ScaleDown";
  }
  return "";
}

const char* pauseWords(Pause pause) {
  switch (pause) {
    case Pause::None:
      return "not paused";
    case Pause::Both:
      return "paused";
    case Pause::ScaleUp:
      return "scale-up paused";
    case Pause::ScaleDown:
      return "scale-down paused";
  }
  return "";
}

bool pauseHolds(Pause pause, std::int32_t current, std::int32_t desired) {
  switch (pause) {
    case Pause::None:
      return false;
    case Pause::Both:
      return desired != current;
    case Pause::ScaleUp:
      return desired > current;
    case Pause::ScaleDown:
      return desired < current;
  }
  return false;
}

const char* requestsSourceName(replicacalc::RequestsSource source) {
  switch (source) {
    case replicacalc::RequestsSource::Spec:
      return "Spec";
    case replicacalc::RequestsSource::Actuated:
      return "Actuated";
    case replicacalc::RequestsSource::Limits:
      return "Limits";
  }
  return "";
}

const char* withinToleranceKeepName(replicacalc::WithinToleranceKeep keep) {
  switch (keep) {
    case replicacalc::WithinToleranceKeep::Status:
      return "Status";
    case replicacalc::WithinToleranceKeep::Spec:
      return "Spec";
  }
  return "";
}

bool HpaControls::any() const {
  return syncPeriod || pause != Pause::None || podSelection != PodSelection::LabelSelector ||
         requestsSource != replicacalc::RequestsSource::Spec || fallback || recordDecision ||
         !schedule.empty() || cpuInitializationPeriod || initialReadinessDelay ||
         withinToleranceKeep != replicacalc::WithinToleranceKeep::Status || !metricRoutes.empty() ||
         forecast || !errors.empty();
}

std::string HpaControls::errorText() const {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += "; ";
    out += e.message;
  }
  return out;
}

std::vector<std::string_view> controlAnnotations() {
  std::vector<std::string_view> keys{kSyncPeriodAnnotation};
  for (const auto& control : kAnnotationControls) keys.push_back(control.key);
  return keys;
}

std::vector<std::string> decisionChangingControls(const HpaControls& c) {
  std::vector<std::string> out;
  auto add = [&out](const char* key, std::string_view value) {
    out.push_back(fmt::format("{}: {}", key, value));
  };
  if (c.pause != Pause::None) add(kPausedAnnotation, pauseName(c.pause));
  if (c.podSelection != PodSelection::LabelSelector)
    add(kPodSelectionAnnotation, podSelectionName(c.podSelection));
  if (c.requestsSource != replicacalc::RequestsSource::Spec)
    add(kRequestsSourceAnnotation, requestsSourceName(c.requestsSource));
  if (c.fallback) add(kFallbackAnnotation, formatFallback(*c.fallback));
  if (!c.schedule.empty()) add(kScheduleAnnotation, fmt::format("{} windows", c.schedule.size()));
  if (c.cpuInitializationPeriod)
    add(kCpuInitializationPeriodAnnotation, formatGoDuration(*c.cpuInitializationPeriod));
  if (c.initialReadinessDelay)
    add(kInitialReadinessDelayAnnotation, formatGoDuration(*c.initialReadinessDelay));
  if (c.withinToleranceKeep != replicacalc::WithinToleranceKeep::Status)
    add(kWithinToleranceKeepAnnotation, withinToleranceKeepName(c.withinToleranceKeep));
  // kube-controller-manager reads a routed metric from the group's APIService: another adapter's
  // value, or a failure, where this controller reads the route's.
  const auto routed = std::count_if(c.metricRoutes.begin(), c.metricRoutes.end(),
                                    [](const auto& route) { return route.has_value(); });
  if (routed > 0) add(kMetricSourcesAnnotation, fmt::format("{} metrics routed", routed));
  // A preview changes nothing: only an active forecast's floor departs from upstream.
  if (c.forecast && c.forecast->mode == ForecastMode::Active)
    add(kForecastAnnotation, describeForecast(*c.forecast));
  return out;
}

HpaControls parseControls(const api::HorizontalPodAutoscaler& hpa, ScheduleCache* schedules) {
  HpaControls out;
  readSyncPeriod(hpa, out);
  const ReadContext context{hpa, schedules};
  for (const auto& control : kAnnotationControls) {
    const std::string* text = annotation(hpa, control.key);
    if (!text) continue;
    if (Status read = control.read(*text, context, out); !read.ok()) {
      const std::string value = control.quotesValue ? " " + quote(*text) : std::string();
      out.errors.push_back({control.key, *text, api::kInvalidControl,
                            fmt::format("{}{} is invalid: {}; {}", control.key, value,
                                        read.error().message, control.instead)});
    }
  }
  return out;
}

}  // namespace hpa::controls
