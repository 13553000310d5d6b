#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace hpa {

// `s` without the characters `isBlank` accepts at either end: the one trim the two below share.
template <typename IsBlank>
std::string_view trimIf(std::string_view s, IsBlank isBlank) {
  while (!s.empty() && isBlank(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && isBlank(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// `s` without the spaces and tabs around it: HTTP's optional whitespace around list items and
// parameters, and the blanks people leave around the parts of an annotation's value.
inline std::string_view trimBlanks(std::string_view s) {
  return trimIf(s, [](unsigned char c) { return c == ' ' || c == '\t'; });
}

// `s` without any whitespace around it (newlines included), as Go's strings.TrimSpace: a file's
// content, a flag's list items, a response body shown in an error.
inline std::string_view trimSpace(std::string_view s) {
  return trimIf(s, [](unsigned char c) { return std::isspace(c) != 0; });
}

// `s` in ASCII lower case (header names, HTTP methods, Kubernetes kinds); other bytes unchanged.
inline std::string asciiLower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Whether `a` and `b` are equal ignoring ASCII case (HTTP tokens, Go's case-insensitive JSON
// field match).
inline bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace hpa
