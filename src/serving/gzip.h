#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hpa::serving {

// Whether an Accept-Encoding header accepts gzip: a "gzip" (or "*") coding whose quality is not 0,
// as RFC 9110 reads the header; codings are case-insensitive.
bool acceptsGzip(std::string_view acceptEncoding);

// `body` as a gzip member (RFC 1952), compressed for speed: a scrape of many HPAs is large text
// that compresses well, and the render time, not the ratio, is what a scrape waits on.
// Nothing when zlib fails (out of memory): the caller sends the body as it is.
std::optional<std::string> gzipCompress(std::string_view body);

}  // namespace hpa::serving
