#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/time.h"
#include "controls/fallback.h"
#include "controls/hpa_controls.h"

namespace hpa::controls {

// A failed metric that proposed its fallback's size instead (hpa-controller.io/fallback).
struct FallbackReport {
  std::string metric;  // which metric, from its spec ("cpu resource", "queue_depth external")
  FailureRun run;      // the metric's failed syncs so far
  std::int32_t replicas = 0;  // what it proposed
  bool operator==(const FallbackReport&) const = default;
};

// What the per-HPA controls (hpa_controls.h) were and what they changed in one reconcile.
struct ControlsReport {
  HpaControls controls;
  // Paused: the size the reconcile would have given the target (its scale update was skipped).
  std::optional<std::int32_t> pausedScaleTo;
  bool pauseStarted = false;  // this reconcile saw the pause begin (ScalingPaused event)
  bool pauseEnded = false;    // ... or end (ScalingResumed event)
  bool fallbackStarted =
      false;                   // a failed metric's fallback began to propose (MetricFallback event)
  bool fallbackEnded = false;  // ... or stopped (MetricFallbackEnded event)
  // The HPA carries hpa-controller.io/last-decision (to be removed once it stops recording).
  bool lastDecisionStored = false;
  // Pods of a utilization metric whose in-place resize had not caught up: their request as in
  // spec and as actuated (requests-source says which one counted).
  struct ResizingPod {
    std::string pod;
    std::string resource;
    std::int64_t specRequest = 0;      // milli
    std::int64_t actuatedRequest = 0;  // milli
    bool operator==(const ResizingPod&) const = default;
  };
  std::vector<ResizingPod> resizingPods;
  // hpa-controller.io/schedule: the windows open at this reconcile and the bounds they make.
  struct OpenScheduleWindow {
    std::string name;
    Time openedAt;
    Time closesAt;
    std::optional<std::int32_t> minReplicas;
    std::optional<std::int32_t> maxReplicas;
    bool operator==(const OpenScheduleWindow&) const = default;
  };
  struct Schedule {
    std::vector<OpenScheduleWindow> open;
    std::int32_t minReplicas = 0;  // the bounds that applied: the HPA's own, raised or lowered
    std::int32_t maxReplicas = 0;
    std::string minFrom;  // the window that set the floor ("" for the HPA's own)
    std::string maxFrom;  // ... the ceiling
    // A window's bound decided the size (the ScheduledMinReplicas / ScheduledMaxReplicas limit).
    bool held = false;
    bool operator==(const Schedule&) const = default;
  };
  std::optional<Schedule> schedule;  // only for an HPA with a schedule
  // hpa-controller.io/forecast: the forecast of one metric at now + lead, the floor it makes and
  // why there is none. Only for an HPA with the annotation (valid or not).
  struct Forecast {
    ForecastMode mode = ForecastMode::Preview;
    std::string metric;
    std::string query;
    std::int32_t minReplicas = 0;  // the bounds the floor keeps to (a schedule's included)
    std::int32_t maxReplicas = 0;
    Duration lead{0};
    std::string leadFrom;             // "annotation", "pods' start-up" or "initial readiness delay"
    std::optional<Duration> startup;  // the pods' start-up the lead counts (computed leads)
    std::optional<Time> at;           // now + lead
    std::optional<double> value;      // the forecast: the metric's total, in its unit
    double confidence = 0;
    std::string cycle;  // "daily", "weekly"
    // The recent load over what the forecast would have said of it, when that moved the forecast:
    // above 1 raised it, below lowered it (`value` is the moved one); `recent` is the stretch
    // checked.
    std::optional<double> recentRatio;
    Duration recent{0};
    std::optional<double> perPodTarget;  // the metric's target per pod, in its unit
    std::optional<std::int32_t> floor;   // within minReplicas..maxReplicas
    // The Forecast condition: ForecastFloor, ForecastPreview, NoForecastHistory, NoForecast or
    // InvalidForecast, and its message (why there is no floor, when there is none).
    std::string reason;
    std::string message;
    bool raised = false;  // Active: the floor raised the metrics' proposal
    bool held = false;    // ... and decided the size (the ForecastFloor limit)
    bool reused = false;  // the forecast was the one made earlier for this history and step
    bool evaluated = false;
    // What this reconcile's pods said (requestsCounted): their start-ups, creation to Ready, and
    // the mean request of the forecast metric's pods (Utilization), in the metric's unit.
    std::vector<Duration> startups;
    std::optional<double> meanRequest;
    bool operator==(const Forecast&) const = default;
  };
  std::optional<Forecast> forecast;
  // Owner-based pod selection: pods the label selector picked whose controller chain does not
  // lead to the scale target, so they were not counted.
  std::vector<std::string> podsNotOwned;
};

}  // namespace hpa::controls
