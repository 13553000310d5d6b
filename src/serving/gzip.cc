#include "serving/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>

#include "common/text.h"

namespace hpa::serving {
namespace {

// A coding's quality: 1 without a q parameter; 0 for "q=0", "q=0.0", "q=0.000".
bool qualityIsZero(std::string_view params) {
  while (!params.empty()) {
    const auto semicolon = params.find(';');
    const std::string_view param = trimBlanks(params.substr(0, semicolon));
    params =
        semicolon == std::string_view::npos ? std::string_view{} : params.substr(semicolon + 1);
    if (param.size() < 2 || std::tolower(static_cast<unsigned char>(param[0])) != 'q' ||
        param[1] != '=')
      continue;
    const std::string_view value = param.substr(2);
    return !value.empty() && value[0] == '0' &&
           std::all_of(value.begin() + 1, value.end(), [](char c) { return c == '.' || c == '0'; });
  }
  return false;
}

}  // namespace

bool acceptsGzip(std::string_view header) {
  while (!header.empty()) {
    const auto comma = header.find(',');
    const std::string_view item = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    const auto semicolon = item.find(';');
    const std::string_view coding = trimBlanks(item.substr(0, semicolon));
    const std::string_view params =
        semicolon == std::string_view::npos ? std::string_view{} : item.substr(semicolon + 1);
    if ((equalsIgnoringCase(coding, "gzip") || coding == "*") && !qualityIsZero(params))
      return true;
  }
  return false;
}

std::optional<std::string> gzipCompress(std::string_view body) {
  z_stream stream{};
  // 15 window bits plus 16: a gzip header and trailer around the deflate stream.
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return std::nullopt;
  std::string out(deflateBound(&stream, static_cast<uLong>(body.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  stream.avail_in = static_cast<uInt>(body.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return std::nullopt;
  return out;
}

}  // namespace hpa::serving
