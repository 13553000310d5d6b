#include "common/text.h"

#include <gtest/gtest.h>

namespace hpa {
namespace {

TEST(TextTest, TrimBlanksDropsSpacesAndTabsOnly) {
  EXPECT_EQ(trimBlanks(" \tq=0 \t"), "q=0");
  EXPECT_EQ(trimBlanks("\nvalue\n"), "\nvalue\n");
  EXPECT_EQ(trimBlanks("  "), "");
}

TEST(TextTest, TrimSpaceDropsEveryWhitespaceAtBothEnds) {
  EXPECT_EQ(trimSpace("token\n"), "token");
  EXPECT_EQ(trimSpace("\r\n HPAScaleToZero=true \t"), "HPAScaleToZero=true");
  EXPECT_EQ(trimSpace("a b"), "a b");
  EXPECT_EQ(trimSpace(" \n"), "");
}

TEST(TextTest, AsciiLowerLowersLettersOnly) {
  EXPECT_EQ(asciiLower("Content-Type"), "content-type");
  EXPECT_EQ(asciiLower("GET"), "get");
  EXPECT_EQ(asciiLower("caf\xC3\x89"), "caf\xC3\x89");
}

TEST(TextTest, EqualsIgnoringCaseComparesWholeStrings) {
  EXPECT_TRUE(equalsIgnoringCase("StabilizationWindowSeconds", "stabilizationwindowseconds"));
  EXPECT_FALSE(equalsIgnoringCase("gzip", "gzip2"));
  EXPECT_FALSE(equalsIgnoringCase("gzip", "gzjp"));
}

}  // namespace
}  // namespace hpa
