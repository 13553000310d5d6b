#pragma once

#include <string>
#include <string_view>

namespace hpa {

// Text as Go's %q (strconv.Quote) prints it, for messages that quote what they were given:
// double quotes around it, '"' and '\' escaped, control characters as \n, \t, ... or \xNN, and
// bytes that are not valid UTF-8 as \xNN. Any byte string is safe to pass; prefer this over
// fmt's "{:?}", whose escaping of invalid UTF-8 in fmt 9 asserts (and so aborts) when the
// template resolves to a copy compiled with assertions on, such as libspdlog's.
std::string quote(std::string_view text);

// Appends `text` in double quotes with only '"' and '\' escaped and newlines as \n: the simple
// quoting that log values (logfmt) and gnuplot strings read back.
void appendDoubleQuoted(std::string& out, std::string_view text);

}  // namespace hpa
