// hpa-controller.io/schedule: windows, their edges, time zones and daylight-saving changes, and
// the bounds they make.

#include "controls/schedule.h"

#include <date/tz.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "controls/schedule_cache.h"

namespace hpa::controls {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::HasSubstr;

Time at(const char* rfc3339) { return *parseRFC3339(rfc3339); }

std::vector<ScheduleWindow> schedule(const char* text) {
  auto s = parseSchedule(text);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : std::vector<ScheduleWindow>{};
}

TEST(Schedule, ReadsYamlAndJson) {
  auto s = schedule(R"(
- {name: weekday-peak, start: "0 8 * * 1-5", duration: 10h, timeZone: Europe/Paris, minReplicas: 10}
- {start: "0 0 24 12 *", duration: 48h, maxReplicas: 4}
)");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "weekday-peak");
  EXPECT_EQ(s[0].duration, hours(10));
  EXPECT_EQ(s[0].minReplicas, 10);
  EXPECT_FALSE(s[0].maxReplicas);
  EXPECT_EQ(s[1].name, "window 2");
  EXPECT_EQ(s[1].timeZone, "UTC");
  EXPECT_EQ(s[1].maxReplicas, 4);
  EXPECT_EQ(schedule(R"([{"start": "30 9 * * *", "duration": "1h", "minReplicas": 3}])").size(),
            1u);
}

TEST(Schedule, RejectsWhatCannotBeMeant) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{start: x}", "must be a list of windows"},
      {"[{duration: 1h, minReplicas: 2}]", "window 1: start (a cron expression) is required"},
      {"[{start: '0 8 * * *', minReplicas: 2}]", "duration is required"},
      {"[{start: '0 8 * * *', duration: 1h}]", "minReplicas or maxReplicas is required"},
      {"[{start: '0 8 * *', duration: 1h, minReplicas: 2}]", "must have 5 fields"},
      {"[{start: '0 8 * * *', duration: 30s, minReplicas: 2}]", "from 1m"},
      {"[{start: '0 8 * * *', duration: 1h, minReplicas: -1}]", "replica count"},
      {"[{start: '0 8 * * *', duration: 1h, minReplicas: '3'}]", "replica count"},
      {"[{start: '0 8 * * *', duration: 1h, minReplicas: 2, timeZone: Mars/Olympus}]",
       "not in the time zone database"},
      {"[{start: '0 8 * * *', duration: 1h, minReplicas: 2, when: now}]", "unknown field"},
      {"[{start: '0 8 * * *', duration: 1h, minReplicas: 2}, 7]", "window 2: must be an object"},
  };
  for (const auto& [text, want] : cases) {
    auto s = parseSchedule(text);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_THAT(s.error().message, HasSubstr(want)) << text;
  }
}

TEST(Schedule, AWindowIsOpenFromItsStartUntilJustBeforeItsEnd) {
  auto s = schedule("[{start: '0 8 * * *', duration: 2h, minReplicas: 5}]");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_FALSE(openAt(s[0], at("2026-11-26T07:59:59Z")));
  auto open = openAt(s[0], at("2026-11-26T08:00:00Z"));
  ASSERT_TRUE(open);
  EXPECT_EQ(open->openedAt, at("2026-11-26T08:00:00Z"));
  EXPECT_EQ(open->closesAt, at("2026-11-26T10:00:00Z"));
  EXPECT_TRUE(openAt(s[0], at("2026-11-26T09:59:59Z")));
  EXPECT_FALSE(openAt(s[0], at("2026-11-26T10:00:00Z")));
  EXPECT_EQ(nextStart(s[0], at("2026-11-26T08:00:00Z")), at("2026-11-27T08:00:00Z"));
  EXPECT_EQ(nextStart(s[0], at("2026-11-26T07:59:30Z")), at("2026-11-26T08:00:00Z"));
}

TEST(Schedule, StartsAreLocalTimeInTheWindowsZone) {
  auto s =
      schedule("[{start: '0 8 * * 1-5', duration: 10h, timeZone: Europe/Paris, minReplicas: 10}]");
  ASSERT_EQ(s.size(), 1u);
  // Winter (UTC+1): 08:00 in Paris is 07:00Z; summer (UTC+2): 06:00Z.
  EXPECT_EQ(nextStart(s[0], at("2026-11-26T00:00:00Z")), at("2026-11-26T07:00:00Z"));
  EXPECT_EQ(nextStart(s[0], at("2026-07-01T00:00:00Z")), at("2026-07-01T06:00:00Z"));
  // Friday 2026-11-27 is followed by Monday 2026-11-30.
  EXPECT_EQ(nextStart(s[0], at("2026-11-27T07:00:00Z")), at("2026-11-30T07:00:00Z"));
  EXPECT_FALSE(openAt(s[0], at("2026-11-28T12:00:00Z")));  // Saturday
}

TEST(Schedule, DaylightSavingChanges) {
  // New York, 2026-03-08: 02:00 local jumps to 03:00, so 02:30 does not happen that day.
  auto s =
      schedule("[{start: '30 2 * * *', duration: 1h, timeZone: America/New_York, minReplicas: 3}]");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(nextStart(s[0], at("2026-03-07T00:00:00Z")), at("2026-03-07T07:30:00Z"));  // 02:30 EST
  EXPECT_EQ(nextStart(s[0], at("2026-03-07T08:00:00Z")),
            at("2026-03-09T06:30:00Z"));  // skips the 8th; 02:30 EDT
  // 2026-11-01: 01:00-02:00 happens twice; a 01:30 start opens the window at each.
  auto twice = schedule(
      "[{start: '30 1 * * *', duration: 30m, timeZone: America/New_York, minReplicas: 3}]");
  ASSERT_EQ(twice.size(), 1u);
  EXPECT_EQ(nextStart(twice[0], at("2026-11-01T00:00:00Z")),
            at("2026-11-01T05:30:00Z"));  // 01:30 EDT
  EXPECT_EQ(nextStart(twice[0], at("2026-11-01T05:30:00Z")),
            at("2026-11-01T06:30:00Z"));  // 01:30 EST
  EXPECT_TRUE(openAt(twice[0], at("2026-11-01T06:45:00Z")));
  EXPECT_FALSE(openAt(twice[0], at("2026-11-01T06:15:00Z")));
}

TEST(Schedule, BoundsTakeTheHighestFloorAndTheLowestCeiling) {
  auto s = schedule(R"(
- {name: peak, start: '0 8 * * *', duration: 10h, minReplicas: 8}
- {name: bigger-peak, start: '0 12 * * *', duration: 1h, minReplicas: 12}
- {name: cap, start: '0 9 * * *', duration: 4h, maxReplicas: 10}
)");
  auto b = scheduledBounds(s, 2, 20, at("2026-11-26T07:00:00Z"));
  EXPECT_EQ(b.minReplicas, 2);
  EXPECT_EQ(b.maxReplicas, 20);
  EXPECT_TRUE(b.open.empty());
  b = scheduledBounds(s, 2, 20, at("2026-11-26T08:30:00Z"));
  EXPECT_EQ(b.minReplicas, 8);
  EXPECT_EQ(b.raisedMinBy->name, "peak");
  b = scheduledBounds(s, 2, 20, at("2026-11-26T10:00:00Z"));
  EXPECT_EQ(b.maxReplicas, 10);
  EXPECT_EQ(b.loweredMaxBy->name, "cap");
  // 12:30: floor 12 above ceiling 10: the ceiling wins.
  b = scheduledBounds(s, 2, 20, at("2026-11-26T12:30:00Z"));
  EXPECT_EQ(b.open.size(), 3u);
  EXPECT_EQ(b.maxReplicas, 10);
  EXPECT_EQ(b.minReplicas, 10);
  // The HPA's own floor above a window's stays.
  b = scheduledBounds(s, 9, 20, at("2026-11-26T08:30:00Z"));
  EXPECT_EQ(b.minReplicas, 9);
  EXPECT_FALSE(b.raisedMinBy);
}

TEST(Schedule, AWindowThatNeverStartsIsNeverOpen) {
  auto s = schedule("[{start: '0 0 30 2 *', duration: 24h, minReplicas: 3}]");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_FALSE(nextStart(s[0], at("2026-01-01T00:00:00Z")));
  EXPECT_FALSE(openAt(s[0], at("2026-03-01T12:00:00Z")));
}

TEST(ScheduleCache, ParsesATextOncePerHpaUntilItChanges) {
  ScheduleCache cache;
  const std::string text = "[{start: '0 8 * * *', duration: 1h, minReplicas: 2}]";
  auto first = cache.get("ns/a", text);
  ASSERT_TRUE(first->ok());
  EXPECT_EQ(cache.get("ns/a", text), first) << "the same text is not parsed again";
  auto other = cache.get("ns/b", text);
  EXPECT_NE(other, first);
  auto changed = cache.get("ns/a", "[{start: '0 9 * * *', duration: 1h, minReplicas: 2}]");
  EXPECT_NE(changed, first);
  EXPECT_EQ((**changed)[0].start, "0 9 * * *");
  auto broken = cache.get("ns/a", "[{start: '0 9 * * *'}]");
  EXPECT_FALSE(broken->ok());
  EXPECT_EQ(cache.size(), 2u);
  cache.erase("ns/a");
  EXPECT_EQ(cache.size(), 1u);
}

// The walk jumps over months, days, hours and minutes; checked against reading every minute's
// local wall clock, around daylight-saving changes in zones with whole-hour, half-hour and no
// changes.
std::optional<Time> everyMinute(const ScheduleWindow& w, Time after, Time until) {
  for (auto t = std::chrono::floor<minutes>(after) + minutes(1); t < until; t += minutes(1)) {
    const auto local = std::chrono::floor<minutes>(w.zone->to_local(t));
    const auto day = date::floor<date::days>(local);
    const date::year_month_day ymd(day);
    const auto sinceMidnight = local - day;
    const int hour = static_cast<int>(std::chrono::floor<hours>(sinceMidnight).count());
    const int minute = static_cast<int>((sinceMidnight - hours(hour)).count());
    if (w.cron.matches(minute, hour, static_cast<int>(static_cast<unsigned>(ymd.day())),
                       static_cast<int>(static_cast<unsigned>(ymd.month())),
                       static_cast<int>(date::weekday(day).c_encoding()))) {
      return Time(t);
    }
  }
  return std::nullopt;
}

TEST(Schedule, TheWalkFindsWhatReadingEveryMinuteFinds) {
  const std::vector<const char*> crons = {"30 1 * * *",   "0 2 * * *",    "*/7 * * * *",
                                          "15 0,3 1 * *", "0 0 * * 0",    "45 23 * * 6",
                                          "0 * 8 3 *",    "59 1-3 * 11 0"};
  const std::vector<const char*> zones = {"America/New_York", "Europe/Paris", "Australia/Lord_Howe",
                                          "Asia/Kolkata", "America/Santiago"};
  const std::vector<const char*> froms = {"2026-03-07T20:00:00Z", "2026-03-28T22:00:00Z",
                                          "2026-04-04T14:00:00Z", "2026-10-31T23:00:00Z",
                                          "2026-11-01T04:10:00Z", "2026-09-05T03:59:00Z"};
  int compared = 0;
  for (const char* cron : crons) {
    for (const char* zone : zones) {
      auto s = schedule(
          fmt::format("[{{start: '{}', duration: 1h, timeZone: {}, minReplicas: 2}}]", cron, zone)
              .c_str());
      ASSERT_EQ(s.size(), 1u);
      for (const char* from : froms) {
        const Time after = at(from);
        const Time until = after + hours(24 * 9);
        auto want = everyMinute(s[0], after, until);
        auto got = nextStart(s[0], after);
        if (want) {
          EXPECT_EQ(got, want) << cron << " in " << zone << " after " << from;
          ++compared;
        } else {
          EXPECT_TRUE(!got || *got >= until) << cron << " in " << zone << " after " << from;
        }
      }
    }
  }
  EXPECT_GT(compared, 150);
}

// The latest start in (now - duration, now], minute by minute.
std::optional<Time> latestEveryMinute(const ScheduleWindow& w, Time now) {
  std::optional<Time> out;
  const auto from = std::chrono::floor<minutes>(now - w.duration);
  for (auto t = std::chrono::floor<minutes>(now); t > from; t -= minutes(1)) {
    if (everyMinute(w, Time(t - minutes(1)), Time(t + minutes(1))) == Time(t)) return Time(t);
  }
  return out;
}

TEST(Schedule, OpenWindowsAreWhatReadingEveryMinuteFinds) {
  const std::vector<const char*> crons = {"30 1 * * *",   "0 2 * * *",   "*/7 * * * *",
                                          "15 0,3 1 * *", "45 23 * * 6", "59 1-3 * 11 0",
                                          "0 0 * 3 *"};
  const std::vector<const char*> zones = {"America/New_York", "Australia/Lord_Howe",
                                          "America/Santiago", "UTC"};
  const std::vector<const char*> nows = {"2026-03-08T07:31:00Z", "2026-11-01T06:45:30Z",
                                         "2026-11-01T05:59:00Z", "2026-04-05T15:10:00Z",
                                         "2026-09-06T04:02:00Z", "2026-11-02T00:00:00Z"};
  int open = 0;
  for (const char* cron : crons) {
    for (const char* zone : zones) {
      for (const char* duration : {"30m", "3h", "50h"}) {
        auto s =
            schedule(fmt::format("[{{start: '{}', duration: {}, timeZone: {}, minReplicas: 2}}]",
                                 cron, duration, zone)
                         .c_str());
        ASSERT_EQ(s.size(), 1u);
        for (const char* now : nows) {
          auto want = latestEveryMinute(s[0], at(now));
          auto got = openAt(s[0], at(now));
          EXPECT_EQ(got ? std::optional<Time>(got->openedAt) : std::nullopt, want)
              << cron << " for " << duration << " in " << zone << " at " << now;
          open += want.has_value();
        }
      }
    }
  }
  EXPECT_GT(open, 60);
}

}  // namespace
}  // namespace hpa::controls
