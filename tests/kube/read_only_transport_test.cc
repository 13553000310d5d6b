#include "kube/read_only_transport.h"

#include <gtest/gtest.h>

#include "fakes/fake_api_server.h"

namespace hpa::kube {
namespace {

HttpRequest request(const std::string& method, const std::string& path) {
  HttpRequest r;
  r.method = method;
  r.pathAndQuery = path;
  return r;
}

TEST(ReadOnlyTransport, RefusesEveryWriteAndWatchWithoutSendingIt) {
  auto server = std::make_unique<testing::FakeApiServer>();
  auto* fake = server.get();
  ReadOnlyTransport transport(std::move(server));
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE"}) {
    auto r = transport.roundTrip(request(method, "/api/v1/namespaces/a/pods/p"));
    ASSERT_FALSE(r.ok()) << method;
    EXPECT_EQ(r.error().reason, kRefusedReadOnly);
  }
  EXPECT_FALSE(transport.openStream(request("GET", "/api/v1/pods?watch=true")).ok());
  EXPECT_TRUE(fake->requests().empty());
}

TEST(ReadOnlyTransport, ReadsEachPathOnceAndRecordsWhatItRead) {
  auto server = std::make_unique<testing::FakeApiServer>();
  auto* fake = server.get();
  fake->serve("/a", {{"kind", "A"}, {"n", 1}});
  fake->serve("/b", {{"kind", "B"}});
  ReadOnlyTransport transport(std::move(server));
  ASSERT_TRUE(transport.roundTrip(request("GET", "/b")).ok());
  fake->serve("/a", {{"kind", "A"}, {"n", 1}});
  auto first = transport.roundTrip(request("GET", "/a"));
  fake->serve("/a", {{"kind", "A"}, {"n", 2}});  // the cluster moves on; this run does not
  auto second = transport.roundTrip(request("GET", "/a"));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->body, second->body);
  auto missing = transport.roundTrip(request("GET", "/missing"));
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 404);
  transport.roundTrip(request("GET", "/missing")).ok();  // failures are not remembered

  EXPECT_EQ(fake->requests(),
            (std::vector<std::string>{"GET /b", "GET /a", "GET /missing", "GET /missing"}));
  auto read = transport.responses();
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].pathAndQuery, "/b");
  EXPECT_EQ(read[1].pathAndQuery, "/a");
  EXPECT_EQ(nlohmann::json::parse(read[1].body)["n"], 1);
}

}  // namespace
}  // namespace hpa::kube
