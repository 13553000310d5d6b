#include "common/cron.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <vector>

#include "common/quote.h"

namespace hpa {
namespace {

struct FieldRange {
  const char* name;
  int low;
  int high;
};
constexpr std::array<FieldRange, 5> kFields = {{{"minute", 0, 59},
                                                {"hour", 0, 23},
                                                {"day of month", 1, 31},
                                                {"month", 1, 12},
                                                {"day of week", 0, 7}}};

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  while (true) {
    auto at = text.find(separator);
    out.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return out;
    text.remove_prefix(at + 1);
  }
}

Result<int> number(std::string_view text, const FieldRange& field) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return Error::format("{} {} is not a number", field.name, quote(std::string(text)));
  }
  if (value < field.low || value > field.high) {
    return Error::format("{} {} is outside {}-{}", field.name, value, field.low, field.high);
  }
  return value;
}

// One comma-separated part of a field: `*`, `n`, `a-b`, each optionally `/step`.
Status addPart(std::string_view part, const FieldRange& field, std::vector<bool>& set) {
  int step = 1;
  if (auto slash = part.find('/'); slash != std::string_view::npos) {
    auto parsed = number(part.substr(slash + 1), FieldRange{field.name, 1, field.high + 1});
    if (!parsed.ok()) return parsed.error().wrap("step");
    step = *parsed;
    part = part.substr(0, slash);
  }
  int low = field.low;
  int high = field.high;
  if (part != "*") {
    auto dash = part.find('-');
    auto first = number(part.substr(0, dash), field);
    if (!first.ok()) return first.error();
    low = high = *first;
    if (dash != std::string_view::npos) {
      auto last = number(part.substr(dash + 1), field);
      if (!last.ok()) return last.error();
      high = *last;
      if (high < low)
        return Error::format("{} range {} runs backwards", field.name, quote(std::string(part)));
    } else if (step != 1) {
      high = field.high;  // "a/n": from a to the end, as crontab reads it
    }
  }
  for (int v = low; v <= high; v += step) set[static_cast<std::size_t>(v)] = true;
  return Status();
}

Result<std::vector<bool>> parseField(std::string_view text, const FieldRange& field) {
  std::vector<bool> set(static_cast<std::size_t>(field.high) + 1, false);
  for (auto part : split(text, ',')) {
    if (part.empty())
      return Error::format("{} {} has an empty list item", field.name, quote(std::string(text)));
    if (auto added = addPart(part, field, set); !added.ok()) return added.error();
  }
  return set;
}

template <std::size_t N>
std::bitset<N> bits(const std::vector<bool>& set) {
  std::bitset<N> out;
  for (std::size_t i = 0; i < N && i < set.size(); ++i) out[i] = set[i];
  return out;
}

}  // namespace

bool CronExpression::matches(int minute, int hour, int day, int month, int weekday) const {
  if (!minutes[static_cast<std::size_t>(minute)] || !hours[static_cast<std::size_t>(hour)] ||
      !months[static_cast<std::size_t>(month)]) {
    return false;
  }
  return matchesDay(day, weekday);
}

bool CronExpression::matchesDay(int day, int weekday) const {
  const bool dayMatch = days[static_cast<std::size_t>(day)];
  const bool weekdayMatch = weekdays[static_cast<std::size_t>(weekday)];
  if (daysRestricted && weekdaysRestricted) return dayMatch || weekdayMatch;
  return dayMatch && weekdayMatch;
}

Result<CronExpression> parseCron(std::string_view text) {
  std::vector<std::string_view> fields;
  for (auto f : split(text, ' ')) {
    if (!f.empty()) fields.push_back(f);
  }
  if (fields.size() != kFields.size()) {
    return Error::format(
        "cron expression {} must have 5 fields (minute hour day-of-month month day-of-week), has "
        "{}",
        quote(std::string(text)), fields.size());
  }
  std::array<std::vector<bool>, 5> sets;
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    auto set = parseField(fields[i], kFields[i]);
    if (!set.ok())
      return set.error().wrap(fmt::format("cron expression {}", quote(std::string(text))));
    sets[i] = std::move(*set);
  }
  CronExpression out;
  out.minutes = bits<60>(sets[0]);
  out.hours = bits<24>(sets[1]);
  out.days = bits<32>(sets[2]);
  out.months = bits<13>(sets[3]);
  if (sets[4][7]) sets[4][0] = true;  // 7 is Sunday too
  out.weekdays = bits<7>(sets[4]);
  out.daysRestricted = fields[2].front() != '*';  // "*/2" counts as unrestricted, as in crontab
  out.weekdaysRestricted = fields[4].front() != '*';
  return out;
}

}  // namespace hpa
