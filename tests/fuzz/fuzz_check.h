#pragma once

// Helpers shared by the fuzz targets.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/json_value.h"

namespace hpa::fuzz {

// An invariant of a fuzz target. When it fails the target prints why and aborts, which libFuzzer
// records as a crash together with the input.
[[noreturn]] inline void invariantFailed(const char* condition, const char* file, int line,
                                         const std::string& detail) {
  std::fprintf(stderr, "\nFUZZ_CHECK failed at %s:%d: %s\n%s\n", file, line, condition,
               detail.c_str());
  std::abort();
}

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// JSON text exactly as the daemon parses response bodies, watch events and annotations (no
// exceptions; a discarded value for malformed or too deeply nested input).
inline nlohmann::json parseJson(std::string_view text) { return parseUntrustedJson(text); }

}  // namespace hpa::fuzz

#define FUZZ_CHECK(condition, detail)                                                         \
  do {                                                                                        \
    if (!(condition)) ::hpa::fuzz::invariantFailed(#condition, __FILE__, __LINE__, (detail)); \
  } while (0)
