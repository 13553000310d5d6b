#include "common/json_value.h"

#include <limits>

namespace hpa {

nlohmann::json parseUntrustedJson(std::string_view text) {
  bool tooDeep = false;
  auto j = nlohmann::json::parse(
      text,
      [&tooDeep](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth > kMaxJsonDepth) tooDeep = true;
        return !tooDeep;
      },
      false);
  if (tooDeep) return nlohmann::json(nlohmann::json::value_t::discarded);
  return j;
}

const nlohmann::json& member(const nlohmann::json& node, std::string_view key) {
  static const nlohmann::json kNull;
  if (!node.is_object()) return kNull;
  auto it = node.find(key);
  return it == node.end() ? kNull : *it;
}

std::string stringValue(const nlohmann::json& node, std::string_view key, std::string fallback) {
  const auto& v = member(node, key);
  return v.is_string() ? v.get<std::string>() : fallback;
}

std::int32_t int32Value(const nlohmann::json& node, std::string_view key, std::int32_t fallback) {
  const auto& v = member(node, key);
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    return u <= std::uint64_t(std::numeric_limits<std::int32_t>::max())
               ? static_cast<std::int32_t>(u)
               : fallback;
  }
  if (v.is_number_integer()) {
    const auto i = v.get<std::int64_t>();
    if (i < std::numeric_limits<std::int32_t>::min() ||
        i > std::numeric_limits<std::int32_t>::max())
      return fallback;
    return static_cast<std::int32_t>(i);
  }
  return fallback;
}

bool boolValue(const nlohmann::json& node, std::string_view key, bool fallback) {
  const auto& v = member(node, key);
  return v.is_boolean() ? v.get<bool>() : fallback;
}

}  // namespace hpa
