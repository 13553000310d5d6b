#include "controller/hpa_controls.h"

#include "common/quote.h"
#include "controller/schedule_cache.h"

#include <fmt/format.h>

#include <array>

namespace hpa::controller {
namespace {

constexpr const char* kInvalidSyncPeriod = "InvalidSyncPeriod";
constexpr const char* kInvalidControl = "InvalidControl";

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
  return fmt::format("must be between {} and {}", formatGoDuration(kMinSyncPeriod), formatGoDuration(kMaxSyncPeriod));
}

void readSyncPeriod(const api::HorizontalPodAutoscaler& hpa, HpaControls& out) {
  auto reject = [&](const std::string& control, const std::string& value, const std::string& why) {
    out.errors.push_back({control, value, kInvalidSyncPeriod,
                          fmt::format("{} {} is invalid: {}; the global sync period applies", control, quote(value), why)});
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

}  // namespace

const char* podSelectionName(PodSelection selection) {
  switch (selection) {
    case PodSelection::LabelSelector: return "LabelSelector";
    case PodSelection::OwnerReferences: return "OwnerReferences";
  }
  return "";
}

const char* requestsSourceName(replicacalc::RequestsSource source) {
  switch (source) {
    case replicacalc::RequestsSource::Spec: return "Spec";
    case replicacalc::RequestsSource::Actuated: return "Actuated";
  }
  return "";
}

bool HpaControls::any() const {
  return syncPeriod || paused || podSelection != PodSelection::LabelSelector ||
         requestsSource != replicacalc::RequestsSource::Spec || fallback || recordDecision || !schedule.empty() ||
         !errors.empty();
}

std::string HpaControls::errorText() const {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += "; ";
    out += e.message;
  }
  return out;
}

HpaControls parseControls(const api::HorizontalPodAutoscaler& hpa, ScheduleCache* schedules) {
  HpaControls out;
  readSyncPeriod(hpa, out);

  if (const std::string* text = annotation(hpa, kPausedAnnotation)) {
    if (auto paused = parseBool(*text)) {
      out.paused = *paused;
    } else {
      out.errors.push_back({kPausedAnnotation, *text, kInvalidControl,
                            fmt::format("{} {} is invalid: must be true or false; scaling is not paused",
                                        kPausedAnnotation, quote(*text))});
    }
  }

  if (const std::string* text = annotation(hpa, kPodSelectionAnnotation)) {
    if (*text == podSelectionName(PodSelection::LabelSelector)) {
      out.podSelection = PodSelection::LabelSelector;
    } else if (*text == podSelectionName(PodSelection::OwnerReferences)) {
      out.podSelection = PodSelection::OwnerReferences;
    } else {
      out.errors.push_back({kPodSelectionAnnotation, *text, kInvalidControl,
                            fmt::format("{} {} is invalid: must be LabelSelector or OwnerReferences; "
                                        "LabelSelector applies",
                                        kPodSelectionAnnotation, quote(*text))});
    }
  }

  if (const std::string* text = annotation(hpa, kRequestsSourceAnnotation)) {
    if (*text == requestsSourceName(replicacalc::RequestsSource::Spec)) {
      out.requestsSource = replicacalc::RequestsSource::Spec;
    } else if (*text == requestsSourceName(replicacalc::RequestsSource::Actuated)) {
      out.requestsSource = replicacalc::RequestsSource::Actuated;
    } else {
      out.errors.push_back({kRequestsSourceAnnotation, *text, kInvalidControl,
                            fmt::format("{} {} is invalid: must be Spec or Actuated; Spec applies",
                                        kRequestsSourceAnnotation, quote(*text))});
    }
  }

  if (const std::string* text = annotation(hpa, kRecordDecisionAnnotation)) {
    if (auto record = parseBool(*text)) {
      out.recordDecision = *record;
    } else {
      out.errors.push_back({kRecordDecisionAnnotation, *text, kInvalidControl,
                            fmt::format("{} {} is invalid: must be true or false; decisions are not recorded",
                                        kRecordDecisionAnnotation, quote(*text))});
    }
  }

  if (const std::string* text = annotation(hpa, kFallbackAnnotation)) {
    if (auto fallback = parseFallback(*text); fallback.ok()) {
      out.fallback = *fallback;
    } else {
      out.errors.push_back({kFallbackAnnotation, *text, kInvalidControl,
                            fmt::format("{} {} is invalid: {}; failed metrics block the decision as without it",
                                        kFallbackAnnotation, quote(*text), fallback.error().message)});
    }
  }

  if (const std::string* text = annotation(hpa, kScheduleAnnotation)) {
    const auto schedule = schedules ? schedules->get(api::objectKey(hpa.metadata.namespace_, hpa.metadata.name), *text)
                                    : std::make_shared<const ScheduleCache::Parsed>(parseSchedule(*text));
    if (schedule->ok()) {
      out.schedule = **schedule;
    } else {
      out.errors.push_back({kScheduleAnnotation, *text, kInvalidControl,
                            fmt::format("{} is invalid: {}; the HPA's own minReplicas and maxReplicas apply",
                                        kScheduleAnnotation, schedule->error().message)});
    }
  }
  return out;
}

}  // namespace hpa::controller
