#include "controls/fallback.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "common/quote.h"
#include "common/text.h"

namespace hpa::controls {
namespace {

std::optional<std::int64_t> parseCount(std::string_view text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::optional<FallbackBehavior> parseBehavior(std::string_view text) {
  for (auto b : {FallbackBehavior::Static, FallbackBehavior::Current,
                 FallbackBehavior::CurrentIfHigher, FallbackBehavior::CurrentIfLower}) {
    if (text == fallbackBehaviorName(b)) return b;
  }
  return std::nullopt;
}

// "after": a count of failed syncs (a bare integer) or a Go duration ("90s", "2m").
Status readAfter(std::string_view value, FallbackSpec& out) {
  if (auto count = parseCount(value)) {
    if (*count < 1 || *count > 1000)
      return Error::format("after {} must be between 1 and 1000 failures", *count);
    out.afterFailures = static_cast<int>(*count);
    return Status();
  }
  auto duration = parseGoDuration(value);
  if (!duration.ok()) {
    return Error::format("after {} is neither a count of failures nor a duration: {}",
                         quote(std::string(value)), duration.error().message);
  }
  if (*duration <= Duration::zero())
    return Error::format("after {} must be positive", quote(std::string(value)));
  out.afterDuration = *duration;
  return Status();
}

Status readPair(std::string_view pair, FallbackSpec& out, bool& sawReplicas) {
  const auto eq = pair.find('=');
  if (eq == std::string_view::npos)
    return Error::format("{} is not key=value", quote(std::string(pair)));
  const auto key = trimBlanks(pair.substr(0, eq));
  const auto value = trimBlanks(pair.substr(eq + 1));
  if (key == "after") return readAfter(value, out);
  if (key == "behavior") {
    auto behavior = parseBehavior(value);
    if (!behavior) {
      return Error::format(
          "behavior {} must be static, current, current-if-higher or current-if-lower",
          quote(std::string(value)));
    }
    out.behavior = *behavior;
    return Status();
  }
  if (key == "replicas") {
    auto count = parseCount(value);
    if (!count || *count < 0 || *count > std::numeric_limits<std::int32_t>::max()) {
      return Error::format("replicas {} must be a count of replicas", quote(std::string(value)));
    }
    out.replicas = static_cast<std::int32_t>(*count);
    sawReplicas = true;
    return Status();
  }
  return Error::format("unknown key {} (after, behavior, replicas)", quote(std::string(key)));
}

}  // namespace

const char* fallbackBehaviorName(FallbackBehavior behavior) {
  switch (behavior) {
    case FallbackBehavior::Static:
      return "static";
    case FallbackBehavior::Current:
      return "current";
    case FallbackBehavior::CurrentIfHigher:
      return "current-if-higher";
    case FallbackBehavior::CurrentIfLower:
      return "current-if-lower";
  }
  return "";
}

Result<FallbackSpec> parseFallback(std::string_view text) {
  FallbackSpec out;
  bool sawReplicas = false;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const auto pair = trimBlanks(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (pair.empty()) continue;
    if (auto read = readPair(pair, out, sawReplicas); !read.ok()) return read.error();
  }
  if (!out.afterFailures && !out.afterDuration) {
    return Error::of("after is required (failures in a row, or a duration such as 2m)");
  }
  if (out.behavior != FallbackBehavior::Current && !sawReplicas) {
    return Error::format("replicas is required with behavior {}",
                         fallbackBehaviorName(out.behavior));
  }
  return out;
}

std::string formatFallback(const FallbackSpec& spec) {
  std::string out = "after=";
  out += spec.afterFailures ? std::to_string(*spec.afterFailures)
                            : formatGoDuration(spec.afterDuration.value_or(Duration::zero()));
  if (spec.behavior != FallbackBehavior::Static)
    out += fmt::format(",behavior={}", fallbackBehaviorName(spec.behavior));
  if (spec.behavior != FallbackBehavior::Current) out += fmt::format(",replicas={}", spec.replicas);
  return out;
}

bool fallbackDue(const FallbackSpec& spec, const FailureRun& run, Time now) {
  if (run.failures <= 0) return false;
  if (spec.afterFailures) return run.failures >= *spec.afterFailures;
  return spec.afterDuration && now - run.since >= *spec.afterDuration;
}

std::int32_t fallbackReplicas(const FallbackSpec& spec, std::int32_t currentReplicas) {
  switch (spec.behavior) {
    case FallbackBehavior::Static:
      return spec.replicas;
    case FallbackBehavior::Current:
      return currentReplicas;
    case FallbackBehavior::CurrentIfHigher:
      return std::max(currentReplicas, spec.replicas);
    case FallbackBehavior::CurrentIfLower:
      return std::min(currentReplicas, spec.replicas);
  }
  return currentReplicas;
}

}  // namespace hpa::controls
