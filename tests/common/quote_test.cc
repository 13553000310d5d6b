#include "common/quote.h"

#include <gtest/gtest.h>

namespace hpa {
namespace {

TEST(Quote, LikeGoPercentQ) {
  EXPECT_EQ(quote(""), "\"\"");
  EXPECT_EQ(quote("web"), "\"web\"");
  EXPECT_EQ(quote("say \"hi\"\\"), "\"say \\\"hi\\\"\\\\\"");
  EXPECT_EQ(quote("a\nb\tc\rd\x01\x7f"), "\"a\\nb\\tc\\rd\\x01\\x7f\"");
  EXPECT_EQ(quote("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80\"");
  EXPECT_EQ(quote("\xc2\x85"), "\"\\u0085\"");
  EXPECT_EQ(quote(std::string_view("a\0b", 3)), "\"a\\x00b\"");
}

// Fuzz finding (config_file_fuzz): "horizontal-pod-autoscaler-sync-period: \xdf" aborted in
// fmt's "{:?}" (an assertion on invalid UTF-8, in the copy of the template libspdlog exports).
// quote() takes any bytes: invalid sequences come out as \xNN, one byte at a time.
TEST(Quote, InvalidUtf8BecomesHexEscapes) {
  EXPECT_EQ(quote("\xdf"), "\"\\xdf\"");
  EXPECT_EQ(quote("\xdf\n"), "\"\\xdf\\n\"");
  EXPECT_EQ(quote("\xc0\xaf"), "\"\\xc0\\xaf\"");                    // overlong '/'
  EXPECT_EQ(quote("\xed\xa0\x80"), "\"\\xed\\xa0\\x80\"");           // a surrogate
  EXPECT_EQ(quote("\xf4\x90\x80\x80"), "\"\\xf4\\x90\\x80\\x80\"");  // past U+10FFFF
  EXPECT_EQ(quote("\xe2\x82"), "\"\\xe2\\x82\"");                    // truncated
  EXPECT_EQ(quote("ok\xffok"), "\"ok\\xffok\"");
}

TEST(Quote, DoubleQuotedEscapesQuotesBackslashesAndNewlinesOnly) {
  std::string out = "key=";
  appendDoubleQuoted(out, "a \"b\" c\\d\ne\tf");
  EXPECT_EQ(out, "key=\"a \\\"b\\\" c\\\\d\\ne\tf\"");
  std::string empty;
  appendDoubleQuoted(empty, "");
  EXPECT_EQ(empty, "\"\"");
}

}  // namespace
}  // namespace hpa
