#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hpa {

// Lenient reads of fields of JSON we did not write (API responses, watch events, plugin output,
// files) where an absent field has a natural default. nlohmann's value() throws when the node is
// not an object or the field holds another type; these return the fallback instead, so that a
// wrong type is treated like an absent field and never escapes as an exception.
std::string stringValue(const nlohmann::json& node, std::string_view key,
                        std::string fallback = {});
// An integer in int32 range (Kubernetes' int32 fields: codes, counts, seconds), else the fallback.
std::int32_t int32Value(const nlohmann::json& node, std::string_view key,
                        std::int32_t fallback = 0);
bool boolValue(const nlohmann::json& node, std::string_view key, bool fallback = false);
// The deepest nesting accepted in JSON from outside. Kubernetes objects nest a few dozen levels;
// copying, printing and comparing a document recurse once per level, so an input of "[[[[..."
// must stop here instead of exhausting the stack.
inline constexpr int kMaxJsonDepth = 512;
// Parses JSON from outside the process: a discarded value (is_discarded()) when it is not JSON or
// nests deeper than kMaxJsonDepth; never throws.
nlohmann::json parseUntrustedJson(std::string_view text);

// The field, or a null value when the node is not an object or has no such field.
const nlohmann::json& member(const nlohmann::json& node, std::string_view key);

}  // namespace hpa
