#pragma once

#include <string_view>

namespace hpa {

// `s` without the spaces and tabs around it: HTTP's optional whitespace around list items and
// parameters, and the blanks people leave around the parts of an annotation's value.
inline std::string_view trimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace hpa
