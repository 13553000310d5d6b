#include "api/meta.h"

#include <gtest/gtest.h>

namespace hpa::api {
namespace {

using Split = std::pair<std::string, std::string>;

TEST(ObjectKey, SplitIsTheInverseOfObjectKey) {
  for (const auto& [ns, name] :
       {Split{"demo", "web"}, Split{"", "cluster-scoped"}, Split{"kube-system", "a.b-c"}}) {
    EXPECT_EQ(splitObjectKey(objectKey(ns, name)), (Split{ns, name})) << ns << "/" << name;
  }
}

TEST(ObjectKey, SplitsAtTheFirstSlash) {
  EXPECT_EQ(splitObjectKey("a/b/c"), (Split{"a", "b/c"}));
  EXPECT_EQ(splitObjectKey("/name"), (Split{"", "name"}));
  EXPECT_EQ(splitObjectKey("ns/"), (Split{"ns", ""}));
  EXPECT_EQ(splitObjectKey(""), (Split{"", ""}));
}

TEST(ApiGroup, IsWhatStandsBeforeTheSlash) {
  EXPECT_EQ(apiGroupOf("apps/v1"), "apps");
  EXPECT_EQ(apiGroupOf("autoscaling/v2beta2"), "autoscaling");
  EXPECT_EQ(apiGroupOf("v1"), "");  // the core group
  EXPECT_EQ(apiGroupOf(""), "");
  EXPECT_EQ(apiGroupOf("/v1"), "");
}

TEST(ApiGroup, ApiVersionOfAGroupAndVersionHasThatGroup) {
  EXPECT_EQ(apiVersionOf("apps", "v1"), "apps/v1");
  EXPECT_EQ(apiVersionOf("", "v1"), "v1");
  EXPECT_EQ(apiGroupOf(apiVersionOf("autoscaling", "v2")), "autoscaling");
}

}  // namespace
}  // namespace hpa::api
