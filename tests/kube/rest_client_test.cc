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
  Result<std::unique_ptr<ResponseStream>> openStream(const HttpRequest&) override {
    return Error::of("no streams");
  }

 private:
  HttpResponse response_;
};

Result<informer::ListResult> listFrom(const std::string& body) {
  hpa::testing::FakeClock clock;
  RestConfig config;
  config.server = "https://test";
  config.qps = 0;
  RestClient client(config, std::make_unique<FixedTransport>(response(200, body)), clock,
                    Logger::discard());
  return RestListWatch(client, "/api/v1/pods").list(informer::ListOptions{});
}

TEST(ApiError, StatusObjectsGiveMessageCodeAndReason) {
  auto e = apiError(response(410, R"json({"kind":"Status","apiVersion":"v1","status":"Failure",
    "message":"too old resource version: 1 (2)","reason":"Expired","code":410})json"),
                    "GET", "/api/v1/pods");
  EXPECT_EQ(e.message, "too old resource version: 1 (2)");
  EXPECT_EQ(e.httpCode, 410);
  EXPECT_EQ(e.reason, "Expired");
  auto plain = apiError(response(502, "<html>Bad Gateway</html>\n"), "GET", "/api/v1/pods");
  EXPECT_EQ(plain.message,
            "the server returned HTTP 502 for GET /api/v1/pods: <html>Bad Gateway</html>");
  EXPECT_EQ(plain.httpCode, 502);
}

// Fuzz finding (status_fuzz): a body whose "kind" is not a string threw nlohmann's type_error out
// of apiError (json::value() with a string default), which nothing catches: an abort. Fields of
// the wrong type now read as absent.
TEST(ApiError, FieldsOfTheWrongTypeAreIgnoredNotThrown) {
  auto notKind = apiError(response(500, R"({"kind":0})"), "GET", "/x");
  EXPECT_EQ(notKind.message, "the server returned HTTP 500 for GET /x: {\"kind\":0}");
  auto badFields = apiError(
      response(409, R"({"kind":"Status","message":{},"reason":7,"code":"409"})"), "PUT", "/x");
  EXPECT_EQ(badFields.message, "the server returned 409 () for PUT /x");
  EXPECT_EQ(badFields.httpCode, 409);
  auto hugeCode =
      apiError(response(500, R"({"kind":"Status","message":"m","code":99999999999})"), "GET", "/x");
  EXPECT_EQ(hugeCode.httpCode, 500);
  EXPECT_FALSE(parseJsonBody(response(404, R"({"kind":[]})"), "GET", "/x").ok());
}

TEST(RestListWatch, ListEnvelope) {
  auto list = listFrom(
      R"({"kind":"PodList","metadata":{"resourceVersion":"12","continue":"c"},"items":[{"a":1},{"b":2}]})");
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

// Fails its first exchanges with a transport error of one reason, then answers 200.
class FailingTransport final : public Transport {
 public:
  FailingTransport(std::string reason, int failures)
      : reason_(std::move(reason)), failures_(failures) {}
  Result<HttpResponse> roundTrip(const HttpRequest&) override {
    if (++exchanges_ > failures_) return response(200, "{}");
    Error err = Error::of("the exchange failed");
    err.reason = reason_;
    return err;
  }
  Result<std::unique_ptr<ResponseStream>> openStream(const HttpRequest&) override {
    return Error::of("no streams");
  }
  int exchanges() const { return exchanges_; }

 private:
  std::string reason_;
  int failures_;
  int exchanges_ = 0;
};

struct Resend {
  const char* reason;
  const char* method;
  bool sentAgain;
};

class RestClientResend : public ::testing::TestWithParam<Resend> {};

// A request goes again only where the transport says the server did not act on it: never after a
// timeout, an oversized or cut-short answer; a lost connection only for an idempotent request.
TEST_P(RestClientResend, OnlyWhereTheTransportSaysItIsSafe) {
  const Resend& c = GetParam();
  RealClock clock;
  RestConfig config;
  config.server = "https://test";
  config.qps = 0;
  config.maxRetryWait = std::chrono::milliseconds(1);
  auto transport = std::make_unique<FailingTransport>(c.reason, 1);
  auto* seen = transport.get();
  RestClient client(config, std::move(transport), clock, Logger::discard());
  const nlohmann::json body = nlohmann::json::object();
  auto r = client.send(c.method, "/x", std::string(c.method) == "GET" ? nullptr : &body);
  EXPECT_EQ(r.ok(), c.sentAgain) << (r.ok() ? "" : r.error().message);
  EXPECT_EQ(seen->exchanges(), c.sentAgain ? 2 : 1);
}

INSTANTIATE_TEST_SUITE_P(
    Reasons, RestClientResend,
    ::testing::Values(Resend{kRequestNotSent, "GET", true}, Resend{kRequestNotSent, "POST", true},
                      Resend{kConnectionLost, "GET", true}, Resend{kConnectionLost, "PUT", false},
                      Resend{kTimedOut, "GET", false}, Resend{kResponseTooLarge, "GET", false},
                      Resend{"", "GET", false}, Resend{"", "PATCH", false}));

}  // namespace
}  // namespace hpa::kube
