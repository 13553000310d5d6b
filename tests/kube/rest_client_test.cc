// The REST client's decoding of what a server answers, over a scripted transport: Status errors
// and list envelopes of any shape are clear errors or defaults, never exceptions.
#include "kube/rest_client.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include "kube/rest_list_watch.h"

namespace hpa::kube {
namespace {

HttpResponse response(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

class FixedTransport final : public Transport {
 public:
  explicit FixedTransport(HttpResponse r) : response_(std::move(r)) {}
  Result<HttpResponse> roundTrip(const HttpRequest&) override { return response_; }
  Result<std::unique_ptr<ResponseStream>> openStream(const HttpRequest&) override { return Error::of("no streams"); }

 private:
  HttpResponse response_;
};

Result<informer::ListResult> listFrom(const std::string& body) {
  hpa::testing::FakeClock clock;
  RestConfig config;
  config.server = "https://test";
  config.qps = 0;
  RestClient client(config, std::make_unique<FixedTransport>(response(200, body)), clock, Logger::discard());
  return RestListWatch(client, "/api/v1/pods").list(informer::ListOptions{});
}

TEST(ApiError, StatusObjectsGiveMessageCodeAndReason) {
  auto e = apiError(response(410, R"json({"kind":"Status","apiVersion":"v1","status":"Failure",
    "message":"too old resource version: 1 (2)","reason":"Expired","code":410})json"), "GET", "/api/v1/pods");
  EXPECT_EQ(e.message, "too old resource version: 1 (2)");
  EXPECT_EQ(e.httpCode, 410);
  EXPECT_EQ(e.reason, "Expired");
  auto plain = apiError(response(502, "<html>Bad Gateway</html>\n"), "GET", "/api/v1/pods");
  EXPECT_EQ(plain.message, "the server returned HTTP 502 for GET /api/v1/pods: <html>Bad Gateway</html>");
  EXPECT_EQ(plain.httpCode, 502);
}

// Fuzz finding (status_fuzz): a body whose "kind" is not a string threw nlohmann's type_error out
// of apiError (json::value() with a string default), which nothing catches: an abort. Fields of
// the wrong type now read as absent.
TEST(ApiError, FieldsOfTheWrongTypeAreIgnoredNotThrown) {
  auto notKind = apiError(response(500, R"({"kind":0})"), "GET", "/x");
  EXPECT_EQ(notKind.message, "the server returned HTTP 500 for GET /x: {\"kind\":0}");
  auto badFields = apiError(response(409, R"({"kind":"Status","message":{},"reason":7,"code":"409"})"), "PUT", "/x");
  EXPECT_EQ(badFields.message, "the server returned 409 () for PUT /x");
  EXPECT_EQ(badFields.httpCode, 409);
  auto hugeCode = apiError(response(500, R"({"kind":"Status","message":"m","code":99999999999})"), "GET", "/x");
  EXPECT_EQ(hugeCode.httpCode, 500);
  EXPECT_FALSE(parseJsonBody(response(404, R"({"kind":[]})"), "GET", "/x").ok());
}

TEST(RestListWatch, ListEnvelope) {
  auto list = listFrom(R"({"kind":"PodList","metadata":{"resourceVersion":"12","continue":"c"},"items":[{"a":1},{"b":2}]})");
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(list->resourceVersion, "12");
  EXPECT_EQ(list->continueToken, "c");
  EXPECT_EQ(list->items.size(), 2u);
  auto empty = listFrom(R"({"kind":"PodList","metadata":{"resourceVersion":"3"},"items":null})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->items.empty());
  EXPECT_FALSE(listFrom(R"({"kind":"PodList","items":{}})").ok());
  EXPECT_FALSE(listFrom(R"([1,2])").ok());
}

// The class of the status_fuzz finding, found reviewing every json::value() call: a
// metadata.resourceVersion or continue of another type than string threw nlohmann's type_error
// out of RestListWatch::list (into the informer's thread: an abort). They read as absent now.
TEST(RestListWatch, MetadataOfTheWrongTypeReadsAsAbsent) {
  auto list = listFrom(R"({"metadata":{"resourceVersion":12,"continue":[]},"items":[]})");
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(list->resourceVersion, "");
  EXPECT_EQ(list->continueToken, "");
  EXPECT_TRUE(listFrom(R"({"metadata":"x","items":[]})").ok());
}

}  // namespace
}  // namespace hpa::kube
