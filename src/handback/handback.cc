#include "handback/handback.h"

#include <algorithm>
#include <string_view>
#include <tuple>

#include "api/meta.h"
#include "controller/history_annotation.h"
#include "controls/hpa_controls.h"
#include "controls/last_decision.h"

namespace hpa::handback {
namespace {

using controls::HpaControls;

// What each control does that kube-controller-manager will not, and whether it does it now.
struct ControlFate {
  const char* key;
  bool (*inEffect)(const HpaControls&);
  const char* whenHandedBack;
  // Words that depend on the value, where they do (null: whenHandedBack).
  const char* (*wordsFor)(const HpaControls&) = nullptr;
};

const char* pauseHandedBack(const HpaControls& c) {
  switch (c.pause) {
    case controls::Pause::ScaleUp:
      return "kube-controller-manager scales it up again";
    case controls::Pause::ScaleDown:
      return "kube-controller-manager scales it down again";
    case controls::Pause::None:
    case controls::Pause::Both:
      break;
  }
  return "kube-controller-manager scales it again";
}

const ControlFate kControlFates[] = {
    {controls::kSyncPeriodAnnotation,
     [](const HpaControls& c) { return c.syncPeriodSource == controls::kSyncPeriodAnnotation; },
     "the global sync period applies again"},
    {controls::kPausedAnnotation,
     [](const HpaControls& c) { return c.pause != controls::Pause::None; },
     "kube-controller-manager scales it again", pauseHandedBack},
    {controls::kPodSelectionAnnotation,
     [](const HpaControls& c) { return c.podSelection == controls::PodSelection::OwnerReferences; },
     "every pod of the selector counts again"},
    {controls::kRequestsSourceAnnotation,
     [](const HpaControls& c) { return c.requestsSource != replicacalc::RequestsSource::Spec; },
     "utilization against spec requests again"},
    {controls::kRecordDecisionAnnotation, [](const HpaControls& c) { return c.recordDecision; },
     "last-decision is no longer updated"},
    {controls::kFallbackAnnotation, [](const HpaControls& c) { return c.fallback.has_value(); },
     "a failing metric holds the size again"},
    {controls::kScheduleAnnotation, [](const HpaControls& c) { return !c.schedule.empty(); },
     "its floors and ceilings no longer apply"},
    {controls::kCpuInitializationPeriodAnnotation,
     [](const HpaControls& c) { return c.cpuInitializationPeriod.has_value(); },
     "kube-controller-manager's --horizontal-pod-autoscaler-cpu-initialization-period applies"},
    {controls::kInitialReadinessDelayAnnotation,
     [](const HpaControls& c) { return c.initialReadinessDelay.has_value(); },
     "kube-controller-manager's --horizontal-pod-autoscaler-initial-readiness-delay applies"},
    {controls::kWithinToleranceKeepAnnotation,
     [](const HpaControls& c) {
       return c.withinToleranceKeep != replicacalc::WithinToleranceKeep::Status;
     },
     "within the tolerance its per-pod Object and External targets keep status.replicas, so "
     "a rollout's surge pods can stay (kubernetes#138505)"},
    {controls::kMetricSourcesAnnotation,
     [](const HpaControls& c) { return !c.metricRoutes.empty(); },
     "routed metrics are read from the APIService of their group again (kube-controller-manager "
     "does not read the annotation; a metric no APIService serves fails)"},
    {controls::kForecastAnnotation,
     [](const HpaControls& c) {
       return c.forecast && c.forecast->mode == controls::ForecastMode::Active;
     },
     "its forecast no longer raises the floor ahead of the load"},
};

struct BookkeepingFate {
  const char* key;
  const char* whenHandedBack;
};

const BookkeepingFate kBookkeeping[] = {
    {controller::kHistoryAnnotation,
     "not read by kube-controller-manager, which starts its stabilization window empty"},
    {controls::kLastDecisionAnnotation, "hpa-controller's last recorded decision, left as it is"},
};

bool invalid(const HpaControls& controls, const std::string& key) {
  return std::any_of(controls.errors.begin(), controls.errors.end(),
                     [&](const controls::ControlError& e) { return e.control == key; });
}

AnnotationFate controlFate(const std::string& key, const HpaControls& controls) {
  if (invalid(controls, key)) return {key, AnnotationKind::IdleControl, "invalid: ignored already"};
  for (const auto& fate : kControlFates) {
    if (key != fate.key) continue;
    if (!fate.inEffect(controls)) return {key, AnnotationKind::IdleControl, "no effect now"};
    return {key, AnnotationKind::Control,
            fate.wordsFor ? fate.wordsFor(controls) : fate.whenHandedBack};
  }
  // A control without words of its own here (handback_test asserts there is none).
  return {key, AnnotationKind::Control,
          "its effect stops: kube-controller-manager does not read it"};
}

AnnotationFate fateOf(const std::string& key, const HpaControls& controls) {
  const auto annotations = controls::controlAnnotations();
  if (std::find(annotations.begin(), annotations.end(), key) != annotations.end())
    return controlFate(key, controls);
  for (const auto& fate : kBookkeeping) {
    if (key == fate.key) return {key, AnnotationKind::Bookkeeping, fate.whenHandedBack};
  }
  return {key, AnnotationKind::Unknown, "unknown to hpa-controller"};
}

}  // namespace

const char* kindName(AnnotationKind kind) {
  switch (kind) {
    case AnnotationKind::Control:
      return "control";
    case AnnotationKind::IdleControl:
      return "idle-control";
    case AnnotationKind::Bookkeeping:
      return "bookkeeping";
    case AnnotationKind::Unknown:
      return "unknown";
  }
  return "";
}

bool HpaHandback::controlsStopApplying() const {
  return std::any_of(annotations.begin(), annotations.end(),
                     [](const AnnotationFate& a) { return a.kind == AnnotationKind::Control; });
}

int HandbackReport::withControlsThatStopApplying() const {
  return static_cast<int>(std::count_if(
      hpas.begin(), hpas.end(), [](const HpaHandback& h) { return h.controlsStopApplying(); }));
}

int HandbackReport::withBookkeepingOnly() const {
  return static_cast<int>(hpas.size()) - withControlsThatStopApplying();
}

std::optional<HpaHandback> handbackOf(const api::HorizontalPodAutoscaler& hpa) {
  HpaHandback out{hpa.metadata.namespace_, hpa.metadata.name, {}, hpa.lastForeignStatusWrite};
  const HpaControls controls = controls::parseControls(hpa);
  for (const auto& [key, value] : hpa.metadata.annotations) {
    if (key.starts_with(api::kControllerAnnotationPrefix))
      out.annotations.push_back(fateOf(key, controls));
  }
  if (out.annotations.empty()) return std::nullopt;
  return out;
}

HandbackReport handbackReport(const std::vector<api::HorizontalPodAutoscaler>& hpas) {
  HandbackReport report;
  for (const auto& hpa : hpas) {
    if (auto handback = handbackOf(hpa)) report.hpas.push_back(std::move(*handback));
  }
  std::sort(report.hpas.begin(), report.hpas.end(), [](const HpaHandback& a, const HpaHandback& b) {
    return std::tie(a.ns, a.name) < std::tie(b.ns, b.name);
  });
  return report;
}

std::string shortName(const std::string& key) {
  const std::string_view prefix = api::kControllerAnnotationPrefix;
  return key.starts_with(prefix) ? key.substr(prefix.size()) : key;
}

}  // namespace hpa::handback
