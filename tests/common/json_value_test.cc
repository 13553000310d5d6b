#include "common/json_value.h"

#include <gtest/gtest.h>

namespace hpa {
namespace {

using nlohmann::json;

TEST(JsonValue, WrongTypesReadAsTheFallback) {
  const json j =
      json::parse(R"({"s":"x","i":7,"big":4294967296,"neg":-3,"f":1.5,"b":true,"o":{},"n":null})");
  EXPECT_EQ(stringValue(j, "s"), "x");
  EXPECT_EQ(stringValue(j, "i", "fb"), "fb");
  EXPECT_EQ(stringValue(j, "o"), "");
  EXPECT_EQ(stringValue(j, "absent", "fb"), "fb");
  EXPECT_EQ(int32Value(j, "i"), 7);
  EXPECT_EQ(int32Value(j, "neg"), -3);
  EXPECT_EQ(int32Value(j, "big", -1), -1);
  EXPECT_EQ(int32Value(j, "f", -1), -1);
  EXPECT_EQ(int32Value(j, "s", -1), -1);
  EXPECT_TRUE(boolValue(j, "b"));
  EXPECT_FALSE(boolValue(j, "s"));
  EXPECT_TRUE(member(j, "n").is_null());
  EXPECT_TRUE(member(j, "o").is_object());
  for (const json& notAnObject : {json::parse("[1]"), json("x"), json(3), json()}) {
    EXPECT_EQ(stringValue(notAnObject, "s", "fb"), "fb");
    EXPECT_EQ(int32Value(notAnObject, "i", 9), 9);
    EXPECT_TRUE(member(notAnObject, "s").is_null());
  }
}

}  // namespace
}  // namespace hpa
