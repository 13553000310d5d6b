#include "controls/schedule.h"

#include <date/tz.h>
#include <fmt/format.h>

#include "common/quote.h"
#include "common/yaml_json.h"

namespace hpa::controls {
namespace {

using Minutes = std::chrono::minutes;
using SysMinutes = std::chrono::time_point<std::chrono::system_clock, Minutes>;
constexpr auto kSearchHorizon = std::chrono::hours(24 * 366);
constexpr std::int32_t kMaxReplicasValue = 1'000'000;

// The searches below walk UTC minutes, reading the window's local wall clock at each, but jump
// over a month, day, hour or minutes that cannot match: a search costs a few hundred steps at most,
// not a year of minutes. Walking UTC keeps daylight-saving changes right: a local time the
// spring-forward change skips is never reached, an hour the fall-back change repeats is walked
// twice. A jump to the local time `target` goes as many real minutes as the wall clock must move,
// or to the instant `target` happens if that is nearer `t`'s far side: the first is right across
// a repeated hour (the walk sees it again), the second across a skipped one and over months whose
// offset changed on the way.

// Forward from `t` (local time `local`) to the local time `target`; always later than `t`.
SysMinutes advance(const ScheduleWindow& w, SysMinutes t, date::local_time<Minutes> local,
                   date::local_time<Minutes> target) {
  const SysMinutes begins =
      std::chrono::floor<Minutes>(w.zone->to_sys(target, date::choose::earliest));
  return std::max(t + Minutes(1), std::min(t + (target - local), begins));
}

// Backward from `t` to the last instant whose local time is `target` (or the last before a gap
// that skips it); always earlier than `t`.
SysMinutes retreat(const ScheduleWindow& w, SysMinutes t, date::local_time<Minutes> local,
                   date::local_time<Minutes> target) {
  const auto info = w.zone->get_info(target);
  const auto at = [&](std::chrono::seconds offset) {
    return SysMinutes(std::chrono::floor<Minutes>(target - offset).time_since_epoch());
  };
  SysMinutes ends;
  switch (info.result) {
    case date::local_info::unique:
      ends = at(info.first.offset);
      break;
    case date::local_info::nonexistent:
      ends = std::chrono::floor<Minutes>(info.second.begin) - Minutes(1);
      break;
    case date::local_info::ambiguous:
      ends = at(info.second.offset) < t ? at(info.second.offset) : at(info.first.offset);
      break;
  }
  return std::min(t - Minutes(1), std::max(t - (local - target), ends));
}

struct LocalFields {
  date::local_time<Minutes> local;
  date::local_days day;
  date::year_month_day ymd;
  int hour = 0;
  int minute = 0;
};

LocalFields localFields(const ScheduleWindow& w, SysMinutes t) {
  LocalFields f;
  f.local = std::chrono::floor<Minutes>(w.zone->to_local(t));
  f.day = date::floor<date::days>(f.local);
  f.ymd = date::year_month_day(f.day);
  const auto sinceMidnight = f.local - f.day;
  f.hour = static_cast<int>(std::chrono::floor<std::chrono::hours>(sinceMidnight).count());
  f.minute = static_cast<int>((sinceMidnight - std::chrono::hours(f.hour)).count());
  return f;
}

bool dayMatches(const CronExpression& cron, const LocalFields& f) {
  return cron.months[static_cast<unsigned>(f.ymd.month())] &&
         cron.matchesDay(static_cast<int>(static_cast<unsigned>(f.ymd.day())),
                         static_cast<int>(date::weekday(f.day).c_encoding()));
}

// The next (step +1) or previous (step -1) value from `from` set in `bits`, -1 when none.
template <std::size_t N>
int nextSet(const std::bitset<N>& bits, int from, int step) {
  for (int v = from; v >= 0 && v < static_cast<int>(N); v += step) {
    if (bits[static_cast<std::size_t>(v)]) return v;
  }
  return -1;
}

// The first minute in [from, to) at which the cron matches the window's local wall clock.
std::optional<SysMinutes> firstStart(const ScheduleWindow& w, SysMinutes from, SysMinutes to) {
  const auto& cron = w.cron;
  for (auto t = from; t < to;) {
    const auto f = localFields(w, t);
    if (!cron.months[static_cast<unsigned>(f.ymd.month())]) {
      t = advance(w, t, f.local,
                  date::local_days((f.ymd.year() / f.ymd.month() / 1) + date::months(1)));
      continue;
    }
    if (!dayMatches(cron, f)) {
      t = advance(w, t, f.local, f.day + date::days(1));
      continue;
    }
    if (!cron.hours[static_cast<std::size_t>(f.hour)]) {
      const int hour = nextSet(cron.hours, f.hour, 1);
      t = advance(w, t, f.local,
                  hour < 0 ? f.day + date::days(1) : f.day + std::chrono::hours(hour));
      continue;
    }
    if (cron.minutes[static_cast<std::size_t>(f.minute)]) return t;
    const int minute = nextSet(cron.minutes, f.minute, 1);
    t = advance(w, t, f.local,
                f.day + std::chrono::hours(f.hour) + Minutes(minute < 0 ? 60 : minute));
  }
  return std::nullopt;
}

// The last minute in (from, to] at which the cron matches the window's local wall clock.
std::optional<SysMinutes> lastStart(const ScheduleWindow& w, SysMinutes from, SysMinutes to) {
  const auto& cron = w.cron;
  for (auto t = to; t > from;) {
    const auto f = localFields(w, t);
    if (!cron.months[static_cast<unsigned>(f.ymd.month())]) {
      t = retreat(w, t, f.local, date::local_days(f.ymd.year() / f.ymd.month() / 1) - Minutes(1));
      continue;
    }
    if (!dayMatches(cron, f)) {
      t = retreat(w, t, f.local, f.day - Minutes(1));
      continue;
    }
    if (!cron.hours[static_cast<std::size_t>(f.hour)]) {
      const int hour = nextSet(cron.hours, f.hour, -1);
      t = retreat(w, t, f.local,
                  hour < 0 ? f.day - Minutes(1) : f.day + std::chrono::hours(hour) + Minutes(59));
      continue;
    }
    if (cron.minutes[static_cast<std::size_t>(f.minute)]) return t;
    const int minute = nextSet(cron.minutes, f.minute, -1);
    const auto hourStart = f.day + std::chrono::hours(f.hour);
    t = retreat(w, t, f.local, minute < 0 ? hourStart - Minutes(1) : hourStart + Minutes(minute));
  }
  return std::nullopt;
}

Result<std::int32_t> replicas(const nlohmann::json& value, const char* field) {
  if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
      value.get<std::int64_t>() > kMaxReplicasValue) {
    return Error::format("{} must be a replica count from 0 to {}", field, kMaxReplicasValue);
  }
  return static_cast<std::int32_t>(value.get<std::int64_t>());
}

Status readWindowFields(const nlohmann::json& item, ScheduleWindow& w) {
  for (const auto& [key, value] : item.items()) {
    if (key == "name" && value.is_string()) {
      w.name = value.get<std::string>();
    } else if (key == "start" && value.is_string()) {
      w.start = value.get<std::string>();
    } else if (key == "duration" && value.is_string()) {
      auto d = parseGoDuration(value.get<std::string>());
      if (!d.ok()) return d.error().wrap("duration");
      if (*d < Minutes(1) || *d > kSearchHorizon)
        return Error::of("duration must be from 1m to 8784h (a year)");
      w.duration = *d;
    } else if (key == "timeZone" && value.is_string()) {
      w.timeZone = value.get<std::string>();
    } else if (key == "minReplicas" || key == "maxReplicas") {
      auto r = replicas(value, key.c_str());
      if (!r.ok()) return r.error();
      (key == "minReplicas" ? w.minReplicas : w.maxReplicas) = *r;
    } else {
      return Error::format("unknown field or wrong type: {}", quote(key));
    }
  }
  return Status();
}

Result<ScheduleWindow> readWindow(const nlohmann::json& item, std::size_t index) {
  ScheduleWindow w;
  w.name = fmt::format("window {}", index + 1);
  w.timeZone = "UTC";
  if (!item.is_object())
    return Error::of("must be an object with start, duration and minReplicas or maxReplicas");
  if (auto read = readWindowFields(item, w); !read.ok()) return read.error();
  if (w.start.empty()) return Error::of("start (a cron expression) is required");
  auto cron = parseCron(w.start);
  if (!cron.ok()) return cron.error();
  w.cron = *cron;
  if (w.duration == Duration::zero()) return Error::of("duration is required");
  if (!w.minReplicas && !w.maxReplicas) return Error::of("minReplicas or maxReplicas is required");
  try {
    w.zone = date::locate_zone(w.timeZone);
  } catch (const std::exception&) {
    return Error::format("timeZone {} is not in the time zone database", quote(w.timeZone));
  }
  return w;
}

}  // namespace

Result<std::vector<ScheduleWindow>> parseSchedule(std::string_view text) {
  auto documents = yamlDocumentsToJson(text);
  if (!documents.ok()) return documents.error();
  if (documents->size() != 1 || !(*documents)[0].is_array())
    return Error::of("must be a list of windows");
  std::vector<ScheduleWindow> out;
  for (std::size_t i = 0; i < (*documents)[0].size(); ++i) {
    auto w = readWindow((*documents)[0][i], i);
    if (!w.ok()) return w.error().wrap(fmt::format("window {}", i + 1));
    out.push_back(std::move(*w));
  }
  return out;
}

std::optional<OpenWindow> openAt(const ScheduleWindow& w, Time now) {
  if (!w.zone) return std::nullopt;
  // The latest start in (now - duration, now] says whether the window is open, and until when.
  auto latest =
      lastStart(w, std::chrono::floor<Minutes>(now - w.duration), std::chrono::floor<Minutes>(now));
  if (!latest) return std::nullopt;
  return OpenWindow{&w, Time(*latest), Time(*latest) + w.duration};
}

std::optional<Time> nextStart(const ScheduleWindow& w, Time after) {
  if (!w.zone) return std::nullopt;
  const SysMinutes first = std::chrono::floor<Minutes>(after) + Minutes(1);
  auto start = firstStart(w, first, first + kSearchHorizon);
  if (!start) return std::nullopt;
  return Time(*start);
}

std::optional<NextOpening> nextOpening(const std::vector<ScheduleWindow>& windows, Time now) {
  std::optional<NextOpening> out;
  for (const auto& w : windows) {
    auto at = nextStart(w, now);
    if (at && (!out || *at < out->at)) out = NextOpening{&w, *at};
  }
  return out;
}

ScheduledBounds scheduledBounds(const std::vector<ScheduleWindow>& windows,
                                std::int32_t minReplicas, std::int32_t maxReplicas, Time now) {
  ScheduledBounds out{minReplicas, maxReplicas, {}, nullptr, nullptr};
  for (const auto& w : windows) {
    auto open = openAt(w, now);
    if (!open) continue;
    out.open.push_back(*open);
    if (w.minReplicas && *w.minReplicas > out.minReplicas) {
      out.minReplicas = *w.minReplicas;
      out.raisedMinBy = &w;
    }
    if (w.maxReplicas && *w.maxReplicas < out.maxReplicas) {
      out.maxReplicas = *w.maxReplicas;
      out.loweredMaxBy = &w;
    }
  }
  if (out.minReplicas > out.maxReplicas) out.minReplicas = out.maxReplicas;
  return out;
}

}  // namespace hpa::controls
