#include "serving/gzip.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "serving/http_endpoints.h"

namespace hpa::serving {
namespace {

// What a scraper does with the body: inflate a gzip member.
std::string gunzip(const std::string& gzipped) {
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  std::string out;
  char buffer[16384];
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gzipped.data()));
  stream.avail_in = static_cast<uInt>(gzipped.size());
  int result = Z_OK;
  while (result == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    result = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
  }
  inflateEnd(&stream);
  EXPECT_EQ(result, Z_STREAM_END);
  return out;
}

TEST(AcceptsGzip, ReadsTheHeaderAsRfc9110Does) {
  EXPECT_TRUE(acceptsGzip("gzip"));
  EXPECT_TRUE(acceptsGzip("identity, GZip;q=0.5"));
  EXPECT_TRUE(acceptsGzip("deflate, *"));
  EXPECT_TRUE(acceptsGzip(" gzip ; q=1 , deflate"));
  EXPECT_FALSE(acceptsGzip(""));
  EXPECT_FALSE(acceptsGzip("identity"));
  EXPECT_FALSE(acceptsGzip("gzip;q=0"));
  EXPECT_FALSE(acceptsGzip("gzip; q=0.000, deflate"));
  EXPECT_FALSE(acceptsGzip("x-gzip2"));
}

TEST(GzipCompress, InflatesToTheSameText) {
  std::string text;
  for (int i = 0; i < 5000; ++i) {
    text += "hpa_controller_desired_replicas{namespace=\"team-" + std::to_string(i % 100) +
            "\",name=\"web-" + std::to_string(i) + "\"} " + std::to_string(i % 40) + "\n";
  }
  const auto gzipped = gzipCompress(text);
  ASSERT_TRUE(gzipped.has_value());
  EXPECT_LT(gzipped->size() * 5, text.size());  // repetitive exposition text compresses well
  EXPECT_EQ(gunzip(*gzipped), text);
  EXPECT_EQ(gunzip(*gzipCompress("")), "");
}

TEST(MetricsEndpoint, GzipsForAScraperThatAcceptsIt) {
  const std::string scrape = "# TYPE up gauge\nup 1\n";
  EndpointHandlers h{
      {}, [] { return std::make_pair(true, std::string()); }, [&] { return scrape; }};
  ServerRequest request{"GET", "/metrics", "", std::nullopt, ""};
  request.acceptEncoding = "gzip";
  const auto gzipped = routeEndpoint(request, h, Logger::discard());
  EXPECT_EQ(gzipped.status, 200);
  EXPECT_EQ(gzipped.contentType, "text/plain; version=0.0.4; charset=utf-8");
  ASSERT_EQ(gzipped.headers.size(), 2u);
  EXPECT_EQ(gzipped.headers[0],
            std::make_pair(std::string("Content-Encoding"), std::string("gzip")));
  EXPECT_EQ(gunzip(gzipped.body), scrape);

  request.acceptEncoding = "identity";
  const auto plain = routeEndpoint(request, h, Logger::discard());
  EXPECT_EQ(plain.body, scrape);
  for (const auto& [name, value] : plain.headers) EXPECT_NE(name, "Content-Encoding");
}

}  // namespace
}  // namespace hpa::serving
