#include "common/time.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "common/quote.h"

namespace hpa {
namespace {

using std::chrono::day;
using std::chrono::month;
using std::chrono::year;
using std::chrono::year_month_day;

struct Civil {
  int year, month, day, hour, minute, second;
};

Civil toCivil(std::int64_t unixSeconds) {
  auto days = std::chrono::floor<std::chrono::days>(
      std::chrono::sys_seconds(std::chrono::seconds(unixSeconds)));
  std::int64_t rem =
      unixSeconds -
      std::chrono::duration_cast<std::chrono::seconds>(days.time_since_epoch()).count();
  year_month_day ymd(days);
  return Civil{int(ymd.year()), int(unsigned(ymd.month())), int(unsigned(ymd.day())),
               int(rem / 3600), int(rem / 60 % 60),         int(rem % 60)};
}

std::string formatCivil(Time t) {
  auto secs = std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
  Civil c = toCivil(secs);
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}", c.year, c.month, c.day, c.hour,
                     c.minute, c.second);
}

bool readDigits(std::string_view s, size_t& pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char ch = s[pos + i];
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
    v = v * 10 + (ch - '0');
  }
  pos += n;
  out = v;
  return true;
}

bool expect(std::string_view s, size_t& pos, char ch) {
  if (pos < s.size() && s[pos] == ch) {
    ++pos;
    return true;
  }
  return false;
}

}  // namespace

std::string formatRFC3339(Time t) { return formatCivil(t) + "Z"; }

std::string formatRFC3339Micro(Time t) {
  auto micros =
      std::chrono::floor<std::chrono::microseconds>(t.time_since_epoch()).count() % 1000000;
  if (micros < 0) micros += 1000000;
  return fmt::format("{}.{:06d}Z", formatCivil(t), micros);
}

std::string formatRFC3339Nano(Time t) {
  auto nanos = t.time_since_epoch().count() % 1000000000LL;
  if (nanos < 0) nanos += 1000000000LL;
  if (nanos == 0) return formatRFC3339(t);
  std::string frac = fmt::format("{:09d}", nanos);
  while (frac.back() == '0') frac.pop_back();
  return fmt::format("{}.{}Z", formatCivil(t), frac);
}

Result<Time> parseRFC3339(std::string_view s) {
  auto fail = [&]() { return Error::format("invalid RFC 3339 time {}", quote(s)); };
  size_t pos = 0;
  int y, mo, d, h, mi, sec;
  if (!readDigits(s, pos, 4, y) || !expect(s, pos, '-') || !readDigits(s, pos, 2, mo) ||
      !expect(s, pos, '-') || !readDigits(s, pos, 2, d))
    return fail();
  if (!(expect(s, pos, 'T') || expect(s, pos, 't') || expect(s, pos, ' '))) return fail();
  if (!readDigits(s, pos, 2, h) || !expect(s, pos, ':') || !readDigits(s, pos, 2, mi) ||
      !expect(s, pos, ':') || !readDigits(s, pos, 2, sec))
    return fail();
  std::int64_t nanos = 0;
  if (expect(s, pos, '.')) {
    int digits = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      if (digits < 9) {
        nanos = nanos * 10 + (s[pos] - '0');
      }
      ++digits;
      ++pos;
    }
    if (digits == 0) return fail();
    for (int i = digits; i < 9; ++i) nanos *= 10;
  }
  std::int64_t offset = 0;
  if (expect(s, pos, 'Z') || expect(s, pos, 'z')) {
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int oh, om;
    if (!readDigits(s, pos, 2, oh) || !expect(s, pos, ':') || !readDigits(s, pos, 2, om))
      return fail();
    offset = sign * (oh * 3600 + om * 60);
  } else {
    return fail();
  }
  if (pos != s.size()) return fail();
  year_month_day ymd{year(y), month(unsigned(mo)), day(unsigned(d))};
  if (!ymd.ok() || h > 23 || mi > 59 || sec > 60) return fail();
  // Years 0000-9999 in seconds fit int64 easily; in Time's int64 nanoseconds they do not.
  const std::int64_t secs = std::chrono::sys_days(ymd).time_since_epoch().count() * 86400LL +
                            h * 3600 + mi * 60 + sec - offset;
  const __int128 ns = static_cast<__int128>(secs) * 1000000000 + nanos;
  return Time(Duration(static_cast<std::int64_t>(
      std::clamp<__int128>(ns, -kParsedTimeLimitNanos, kParsedTimeLimitNanos))));
}

Result<Duration> parseGoDuration(std::string_view text) {
  auto fail = [&]() { return Error::format("time: invalid duration {}", quote(text)); };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration(0);
  if (s.empty()) return fail();
  long double total = 0;
  while (!s.empty()) {
    size_t i = 0;
    long double value = 0;
    bool anyDigits = false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      value = value * 10 + (s[i] - '0');
      ++i;
      anyDigits = true;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      long double scale = 0.1L;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        value += (s[i] - '0') * scale;
        scale /= 10;
        ++i;
        anyDigits = true;
      }
    }
    if (!anyDigits) return fail();
    size_t u = i;
    while (u < s.size() && !std::isdigit(static_cast<unsigned char>(s[u])) && s[u] != '.') ++u;
    std::string_view unit = s.substr(i, u - i);
    long double nsPerUnit;
    if (unit == "ns")
      nsPerUnit = 1;
    else if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs")
      nsPerUnit = 1e3L;
    else if (unit == "ms")
      nsPerUnit = 1e6L;
    else if (unit == "s")
      nsPerUnit = 1e9L;
    else if (unit == "m")
      nsPerUnit = 60e9L;
    else if (unit == "h")
      nsPerUnit = 3600e9L;
    else if (unit.empty())
      return Error::format("time: missing unit in duration {}", quote(text));
    else
      return Error::format("time: unknown unit {} in duration {}", quote(unit), quote(text));
    total += value * nsPerUnit;
    s.remove_prefix(u);
  }
  if (total > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) return fail();
  auto ns = static_cast<std::int64_t>(std::llroundl(total));
  return Duration(negative ? -ns : ns);
}

Result<Duration> parseDurationFlag(std::string_view flag, std::string_view value, bool positive) {
  auto d = parseGoDuration(value);
  if (!d.ok())
    return Error::format("invalid value {} for --{}: {}", quote(value), flag, d.error().message);
  if (d->count() < 0 || (positive && d->count() == 0)) {
    return Error::format("invalid value {} for --{}: {}", quote(value), flag,
                         positive ? "must be positive" : "must not be negative");
  }
  return d;
}

std::string formatGoDuration(Duration d) {
  std::int64_t ns = d.count();
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  // Magnitude as unsigned so that the minimum int64 does not overflow.
  std::uint64_t u = ns < 0 ? std::uint64_t(0) - std::uint64_t(ns) : std::uint64_t(ns);
  auto fraction = [](std::uint64_t v, int digits) {
    std::string f = fmt::format("{:0{}d}", v, digits);
    while (!f.empty() && f.back() == '0') f.pop_back();
    return f.empty() ? std::string() : "." + f;
  };
  if (u < 1000000000ULL) {
    if (u < 1000ULL) return fmt::format("{}{}ns", sign, u);
    if (u < 1000000ULL)
      return fmt::format("{}{}{}\xc2\xb5s", sign, u / 1000, fraction(u % 1000, 3));
    return fmt::format("{}{}{}ms", sign, u / 1000000, fraction(u % 1000000, 6));
  }
  std::uint64_t secs = u / 1000000000ULL;
  std::string frac = fraction(u % 1000000000ULL, 9);
  std::uint64_t hours = secs / 3600, minutes = secs / 60 % 60, seconds = secs % 60;
  if (hours > 0) return fmt::format("{}{}h{}m{}{}s", sign, hours, minutes, seconds, frac);
  if (minutes > 0) return fmt::format("{}{}m{}{}s", sign, minutes, seconds, frac);
  return fmt::format("{}{}{}s", sign, seconds, frac);
}

}  // namespace hpa
