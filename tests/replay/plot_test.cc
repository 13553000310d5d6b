#include "replay/plot.h"

#include <gtest/gtest.h>

namespace hpa::replay {
namespace {

TEST(Plot, TheScriptGoesToTmpdirElseTmp) {
  EXPECT_EQ(temporaryDirectory(nullptr), "/tmp");
  EXPECT_EQ(temporaryDirectory(""), "/tmp");
  EXPECT_EQ(temporaryDirectory("/var/tmp/build"), "/var/tmp/build");
  EXPECT_EQ(temporaryDirectory("/var/tmp/build/"), "/var/tmp/build");
  EXPECT_EQ(temporaryDirectory("/"), "/");
}

}  // namespace
}  // namespace hpa::replay
