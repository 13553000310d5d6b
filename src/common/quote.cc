#include "common/quote.h"

#include <fmt/format.h>

namespace hpa {
namespace {

// Length of the valid UTF-8 sequence starting at text[i] (1-4), or 0 if it is not one. Rejects
// overlong forms, surrogates and code points past U+10FFFF, as Go's utf8.DecodeRune does.
size_t utf8Length(std::string_view text, size_t i, char32_t& rune) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char b0 = byte(0);
  size_t n = 0;
  char32_t min = 0;
  if (b0 < 0x80) {
    rune = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    n = 2, rune = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3, rune = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4, rune = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
    rune = (rune << 6) | (byte(k) & 0x3F);
  }
  if (rune < min || rune > 0x10FFFF || (rune >= 0xD800 && rune <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    char32_t rune = 0;
    const size_t n = utf8Length(text, i, rune);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    switch (rune) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default:
        if (rune < 0x20 || rune == 0x7F) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned>(rune));
        } else if (rune >= 0x80 && rune < 0xA0) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(rune));  // C1 controls
        } else {
          out.append(text.substr(i, n));
        }
    }
    i += n;
  }
  out.push_back('"');
  return out;
}

void appendDoubleQuoted(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
}

}  // namespace hpa
