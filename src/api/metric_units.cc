#include "api/metric_units.h"

#include <fmt/format.h>

#include <array>

#include "common/overloaded.h"

namespace hpa::api {
namespace {

constexpr std::uint64_t kMilli = 1000;
constexpr std::uint64_t kKibi = 1024;
// Ki .. Ei: the binary suffixes of a Quantity, as kubectl prints memory.
constexpr std::array<const char*, 6> kBinarySuffixes{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

// |milli| without overflow at the int64 minimum.
std::uint64_t magnitudeOf(std::int64_t milli) {
  return milli < 0 ? 0 - static_cast<std::uint64_t>(milli) : static_cast<std::uint64_t>(milli);
}

std::string trimFraction(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

// The exact decimal of a milli-value: "32", "0.5", "1.234".
std::string decimal(bool negative, std::uint64_t magnitude) {
  std::string out = fmt::format("{}{}", negative ? "-" : "", magnitude / kMilli);
  if (magnitude % kMilli != 0) out += trimFraction(fmt::format(".{:03}", magnitude % kMilli));
  return out;
}

std::string cores(bool negative, std::uint64_t magnitude) {
  if (magnitude % kMilli == 0) return decimal(negative, magnitude);
  return fmt::format("{}{}m", negative ? "-" : "", magnitude);
}

// The largest binary suffix that divides `whole` bytes exactly: 52428800 is "50Mi".
std::string exactBinary(const char* sign, std::uint64_t whole) {
  std::uint64_t unit = kKibi;
  std::uint64_t divisor = 0;
  const char* suffix = nullptr;
  for (size_t i = 0; i < kBinarySuffixes.size() && whole >= unit; ++i) {
    if (whole % unit == 0) {
      divisor = unit;
      suffix = kBinarySuffixes[i];
    }
    if (i + 1 < kBinarySuffixes.size()) unit *= kKibi;  // at most 1024^6 = 2^60
  }
  return suffix ? fmt::format("{}{}{}", sign, whole / divisor, suffix) : std::string();
}

std::string bytes(bool negative, std::uint64_t magnitude) {
  const char* sign = negative ? "-" : "";
  if (magnitude % kMilli == 0) {
    if (auto exact = exactBinary(sign, magnitude / kMilli); !exact.empty()) return exact;
  }
  const double value = static_cast<double>(magnitude) / static_cast<double>(kMilli);
  if (value < static_cast<double>(kKibi)) return decimal(negative, magnitude);
  // Not a whole multiple: the largest suffix below the value, two decimals at most
  // (1.5Ki, 16.67Mi).
  double scaled = value / static_cast<double>(kKibi);
  size_t suffix = 0;
  while (suffix + 1 < kBinarySuffixes.size() && scaled >= static_cast<double>(kKibi)) {
    scaled /= static_cast<double>(kKibi);
    ++suffix;
  }
  return fmt::format("{}{}{}", sign, trimFraction(fmt::format("{:.2f}", scaled)),
                     kBinarySuffixes[suffix]);
}

}  // namespace

MetricUnit unitOfResource(std::string_view resource) {
  if (resource == "cpu") return MetricUnit::Cores;
  if (resource == "memory" || resource == "storage" || resource == "ephemeral-storage" ||
      resource.starts_with("hugepages-")) {
    return MetricUnit::Bytes;
  }
  return MetricUnit::Number;
}

MetricUnit unitOf(const MetricSpec& metric) {
  return std::visit(
      Overloaded{[](const ResourceMetricSource& s) { return unitOfResource(s.name); },
                 [](const ContainerResourceMetricSource& s) { return unitOfResource(s.name); },
                 [](const ObjectMetricSource&) { return MetricUnit::Number; },
                 [](const PodsMetricSource&) { return MetricUnit::Number; },
                 [](const ExternalMetricSource&) { return MetricUnit::Number; },
                 [](const UnknownMetricSource&) { return MetricUnit::Number; }},
      metric.source);
}

const char* unitName(MetricUnit unit) {
  switch (unit) {
    case MetricUnit::Cores:
      return "cores";
    case MetricUnit::Bytes:
      return "bytes";
    case MetricUnit::Number:
      return "number";
  }
  return "number";
}

std::string formatMilli(std::int64_t milli, MetricUnit unit) {
  const bool negative = milli < 0;
  const std::uint64_t magnitude = magnitudeOf(milli);
  switch (unit) {
    case MetricUnit::Cores:
      return cores(negative, magnitude);
    case MetricUnit::Bytes:
      return bytes(negative, magnitude);
    case MetricUnit::Number:
      return decimal(negative, magnitude);
  }
  return decimal(negative, magnitude);
}

std::string formatQuantity(const Quantity& quantity, MetricUnit unit) {
  return formatMilli(quantity.milliValue(), unit);
}

}  // namespace hpa::api
