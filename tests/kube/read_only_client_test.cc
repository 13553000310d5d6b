#include "kube/read_only_client.h"

#include <gtest/gtest.h>

#include "fakes/fake_api_server.h"
#include "fakes/fake_clock.h"

namespace hpa::kube {
namespace {

TEST(ReadOnlyClient, WritesAndWatchesNeverLeaveTheClientAndReadsAreRecorded) {
  testing::FakeClock clock;
  auto server = std::make_unique<testing::FakeApiServer>();
  auto* fake = server.get();
  fake->serve("/api/v1/namespaces/a/pods/p", {{"kind", "Pod"}});
  RestConfig config;
  config.server = "https://cluster.example";
  ReadOnlyClient cluster(config, std::move(server), clock);

  const nlohmann::json body{{"spec", {{"replicas", 1}}}};
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE"}) {
    auto r = cluster.client().send(method, "/api/v1/namespaces/a/pods/p", &body);
    ASSERT_FALSE(r.ok()) << method;
    EXPECT_EQ(r.error().reason, kRefusedReadOnly) << method;
  }
  EXPECT_FALSE(cluster.client().watch("/api/v1/pods?watch=true").ok());
  EXPECT_TRUE(fake->requests().empty());

  ASSERT_TRUE(cluster.client().get("/api/v1/namespaces/a/pods/p").ok());
  EXPECT_EQ(fake->requests(), std::vector<std::string>{"GET /api/v1/namespaces/a/pods/p"});
  ASSERT_EQ(cluster.responses().size(), 1u);
  EXPECT_EQ(cluster.responses()[0].pathAndQuery, "/api/v1/namespaces/a/pods/p");
}

}  // namespace
}  // namespace hpa::kube
