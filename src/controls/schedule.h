#pragma once

// The hpa-controller.io/schedule control: windows that raise minReplicas and/or lower
// maxReplicas while they are open, for peaks known in advance, without cron jobs patching the
// HPA (which fight GitOps and forget to undo). Reactive scaling keeps working inside the bounds;
// when a window closes the HPA's own bounds return and the stabilization window smooths the way
// down. Pure rules: time zones from the system's tz database (Debian's libhowardhinnant-date).
//
//   hpa-controller.io/schedule: |
//     - {name: weekday-peak, start: "0 8 * * 1-5", duration: 10h, timeZone: Europe/Paris,
//     minReplicas: 10}
//     - {name: freeze, start: "0 0 24 12 *", duration: 48h, timeZone: UTC, maxReplicas: 4}

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/cron.h"
#include "common/result.h"
#include "common/time.h"

namespace date {
class time_zone;
}

namespace hpa::controls {

inline constexpr const char* kScheduleAnnotation = "hpa-controller.io/schedule";

struct ScheduleWindow {
  std::string name;   // for conditions and explain; "window N" when not given
  std::string start;  // the cron expression as written
  CronExpression cron;
  Duration duration{0};
  std::string timeZone;  // IANA name, UTC by default
  const date::time_zone* zone = nullptr;
  std::optional<std::int32_t> minReplicas;
  std::optional<std::int32_t> maxReplicas;
  bool operator==(const ScheduleWindow&) const = default;
};

// A YAML or JSON list of windows; every window needs start, duration and minReplicas and/or
// maxReplicas. The error names the window and the field.
Result<std::vector<ScheduleWindow>> parseSchedule(std::string_view text);

// A window that is open at some instant: since its latest start, for its duration.
struct OpenWindow {
  const ScheduleWindow* window = nullptr;
  Time openedAt;
  Time closesAt;
};

// Whether `window` is open at `now`: a start (a minute the cron matches in the window's zone)
// in (now - duration, now]. A local time that does not exist (the spring-forward gap) starts
// nothing; one that happens twice (the fall-back hour) starts the window at each.
std::optional<OpenWindow> openAt(const ScheduleWindow& window, Time now);
// The first start after `after`, within a year; nullopt if none (e.g. "0 0 30 2 *").
std::optional<Time> nextStart(const ScheduleWindow& window, Time after);

// The window that opens next after `now` and when (the earliest start of any window, within a
// year); for explain.
struct NextOpening {
  const ScheduleWindow* window = nullptr;
  Time at;
};
std::optional<NextOpening> nextOpening(const std::vector<ScheduleWindow>& windows, Time now);

// The HPA's bounds at `now` with its open windows: the highest floor and the lowest ceiling of
// the HPA's own and the open windows'. Where a floor exceeds a ceiling the ceiling wins: a ceiling
// is a cost limit.
struct ScheduledBounds {
  std::int32_t minReplicas = 1;
  std::int32_t maxReplicas = 1;
  std::vector<OpenWindow> open;
  const ScheduleWindow* raisedMinBy = nullptr;  // the window that set the floor, if one did
  const ScheduleWindow* loweredMaxBy = nullptr;
};
ScheduledBounds scheduledBounds(const std::vector<ScheduleWindow>& windows,
                                std::int32_t minReplicas, std::int32_t maxReplicas, Time now);

}  // namespace hpa::controls
