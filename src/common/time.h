#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace hpa {

// Wall-clock instants with nanosecond resolution, as Kubernetes timestamps carry them.
using Time = std::chrono::time_point<std::chrono::system_clock, std::chrono::nanoseconds>;
using Duration = std::chrono::nanoseconds;

// RFC 3339 with second precision and "Z" (metav1.Time's wire form), e.g. 2024-05-01T12:00:05Z.
std::string formatRFC3339(Time t);
// RFC 3339 with microseconds (metav1.MicroTime, used by Leases and Events).
std::string formatRFC3339Micro(Time t);
// RFC 3339 with as many fractional digits as needed, trailing zeros trimmed (Go's RFC3339Nano).
std::string formatRFC3339Nano(Time t);
// Accepts RFC 3339 with optional fractional seconds and a "Z" or +hh:mm / -hh:mm offset.
// Instants more than 2^62 - 1 ns (146 years) from the epoch, i.e. before 1823-11-12 or after
// 2116-02-20, are clamped there: RFC 3339 reaches years 0000-9999 (Go's zero time 0001-01-01
// included) but Time holds int64 nanoseconds, and with this bound the difference of any two
// parsed instants, or one of them moved by any duration under 146 years, never overflows.
Result<Time> parseRFC3339(std::string_view text);
inline constexpr std::int64_t kParsedTimeLimitNanos = (std::int64_t(1) << 62) - 1;

// Go time.Duration text: "300ms", "1.5h", "2h45m", "30.025s", "-1m0s", "0".
Result<Duration> parseGoDuration(std::string_view text);
// The value of a duration flag (Go's syntax), refusing a negative one, and zero too when
// `positive`; errors name the flag as Go's flag package does ("invalid value "x" for --flag: ...").
Result<Duration> parseDurationFlag(std::string_view flag, std::string_view value,
                                   bool positive = false);
// Formats like Go's Duration.String(): "15s", "5m0s", "1h0m0s", "30.025s", "500ms", "0s".
std::string formatGoDuration(Duration d);

inline std::int64_t toUnixSeconds(Time t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}
inline Time fromUnixSeconds(std::int64_t s) { return Time(std::chrono::seconds(s)); }
// Truncates to whole seconds, as metav1.Time does when it is serialized.
inline Time truncateToSeconds(Time t) { return fromUnixSeconds(toUnixSeconds(t)); }

}  // namespace hpa
