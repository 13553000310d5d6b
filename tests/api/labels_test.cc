#include "api/labels.h"

#include <gtest/gtest.h>

namespace hpa::api {
namespace {

TEST(Labels, PackedSetGetAndOrder) {
  Labels l{{"tier", "web"}, {"app", "shop"}, {"pod-template-hash", "7d9f8b6c5d"}};
  EXPECT_EQ(l.size(), 3u);
  EXPECT_EQ(l.get("app"), "shop");
  EXPECT_EQ(l.get("tier"), "web");
  EXPECT_EQ(l.get("pod-template-hash"), "7d9f8b6c5d");
  EXPECT_FALSE(l.get("ap"));
  EXPECT_FALSE(l.get("zzz"));
  EXPECT_FALSE(l.has(""));
  l.set("app", "cart");
  l.set("empty", "");
  EXPECT_EQ(l.get("app"), "cart");
  EXPECT_EQ(l.get("empty"), "");
  EXPECT_EQ(l.size(), 4u);
  EXPECT_EQ(
      l.toMap(),
      (std::map<std::string, std::string>{
          {"app", "cart"}, {"empty", ""}, {"pod-template-hash", "7d9f8b6c5d"}, {"tier", "web"}}));
  // Same content, same packed form, whatever the insertion order.
  EXPECT_EQ(Labels::fromMap(l.toMap()), l);
  EXPECT_TRUE(Labels().empty());
}

TEST(Labels, NulCarryingLabelsAreDropped) {
  Labels l = Labels::fromMap(
      {{"ok", "1"}, {std::string("bad\0key", 7), "x"}, {"v", std::string("a\0b", 3)}});
  EXPECT_EQ(l.size(), 1u);
  EXPECT_EQ(l.get("ok"), "1");
  EXPECT_FALSE(l.has("v"));
}

}  // namespace
}  // namespace hpa::api
