#pragma once

// A five-field cron expression (minute hour day-of-month month day-of-week), as Kubernetes
// CronJobs and crontab(5) read it: numbers, `*`, ranges `a-b`, lists `a,b`, steps `*/n` and
// `a-b/n`; day-of-week 0-7 with 0 and 7 Sunday. When both day fields are restricted a time
// matches either (crontab's rule). Matched against local wall-clock fields; time zones are the
// caller's business.

#include <bitset>
#include <string>
#include <string_view>

#include "common/result.h"

namespace hpa {

struct CronExpression {
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days;     // 1-31
  std::bitset<13> months;   // 1-12
  std::bitset<7> weekdays;  // 0-6, Sunday 0
  bool daysRestricted = false;
  bool weekdaysRestricted = false;
  bool operator==(const CronExpression&) const = default;

  // `weekday` 0-6, Sunday 0; `day` 1-31; `month` 1-12.
  bool matches(int minute, int hour, int day, int month, int weekday) const;
  // The day fields alone (crontab's either-or when both are restricted).
  bool matchesDay(int day, int weekday) const;
};

Result<CronExpression> parseCron(std::string_view text);

}  // namespace hpa
