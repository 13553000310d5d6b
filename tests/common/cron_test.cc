#include "common/cron.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hpa {
namespace {

using ::testing::HasSubstr;

TEST(Cron, ReadsEveryFormOfAField) {
  auto c = parseCron("*/15 8-18/2 1,15 * 1-5");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->minutes[0] && c->minutes[15] && c->minutes[45]);
  EXPECT_FALSE(c->minutes[10]);
  EXPECT_TRUE(c->hours[8] && c->hours[10] && c->hours[18]);
  EXPECT_FALSE(c->hours[9] || c->hours[19]);
  EXPECT_TRUE(c->days[1] && c->days[15]);
  EXPECT_EQ(c->months.count(), 12u);  // 1-12 (bit 0 unused)
  EXPECT_TRUE(c->daysRestricted && c->weekdaysRestricted);
  c = parseCron("5/20 0 * * 7");  // "a/n" runs from a; 7 is Sunday
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->minutes[5] && c->minutes[25] && c->minutes[45]);
  EXPECT_EQ(c->minutes.count(), 3u);
  EXPECT_TRUE(c->weekdays[0]);
  EXPECT_FALSE(c->daysRestricted);
}

TEST(Cron, EitherDayFieldMatchesWhenBothAreRestricted) {
  auto c = parseCron("0 9 1 * 1");  // the 1st, or any Monday
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->matches(0, 9, 1, 6, 3));   // the 1st, a Wednesday
  EXPECT_TRUE(c->matches(0, 9, 8, 6, 1));   // a Monday, the 8th
  EXPECT_FALSE(c->matches(0, 9, 8, 6, 3));  // neither
  c = parseCron("0 9 * * 1");               // only the day of week restricts
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->matches(0, 9, 1, 6, 3));
  EXPECT_TRUE(c->matches(0, 9, 8, 6, 1));
  EXPECT_FALSE(c->matches(1, 9, 8, 6, 1));
}

TEST(Cron, RejectsWhatItCannotRead) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "must have 5 fields"},
      {"* * * *", "must have 5 fields"},
      {"60 * * * *", "minute 60 is outside 0-59"},
      {"* 24 * * *", "hour 24"},
      {"* * 0 * *", "day of month 0"},
      {"* * * 13 *", "month 13"},
      {"* * * * 8", "day of week 8"},
      {"a * * * *", "is not a number"},
      {"5-1 * * * *", "runs backwards"},
      {"*/0 * * * *", "step"},
      {"1,,2 * * * *", "empty list item"},
      {"* * * JAN *", "is not a number"},
  };
  for (const auto& [text, want] : cases) {
    auto c = parseCron(text);
    ASSERT_FALSE(c.ok()) << text;
    EXPECT_THAT(c.error().message, HasSubstr(want)) << text;
  }
}

}  // namespace
}  // namespace hpa
