#include "common/time.h"

#include <gtest/gtest.h>

#include <limits>

namespace hpa {
namespace {

TEST(RFC3339, FormatsSecondPrecisionUtc) {
  Time t = fromUnixSeconds(1714564805) + std::chrono::milliseconds(250);
  EXPECT_EQ(formatRFC3339(t), "2024-05-01T12:00:05Z");
  EXPECT_EQ(formatRFC3339Micro(t), "2024-05-01T12:00:05.250000Z");
}

TEST(RFC3339, ParsesFractionsAndOffsets) {
  auto t = parseRFC3339("2024-05-01T12:00:05Z");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(toUnixSeconds(*t), 1714564805);
  auto frac = parseRFC3339("2024-05-01T12:00:05.123456789Z");
  ASSERT_TRUE(frac.ok());
  EXPECT_EQ((*frac - *t).count(), 123456789);
  auto off = parseRFC3339("2024-05-01T14:00:05+02:00");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(*off, *t);
}

TEST(RFC3339, RejectsMalformed) {
  for (const char* bad :
       {"", "2024-05-01", "2024-13-01T00:00:00Z", "2024-05-01T12:00:05", "yesterday",
        "2024-05-01T12:00:05.Z", "2024-02-30T00:00:00Z", "2024-05-01T12:00:05Zjunk"}) {
    EXPECT_FALSE(parseRFC3339(bad).ok()) << bad;
  }
}

// Fuzz finding (pod_fuzz, pod_metrics_fuzz, exec_credential_fuzz, snapshot_fuzz, ...): a year
// outside 1678-2261 overflowed int64 nanoseconds (UB) converting seconds into a Time. Such
// instants are clamped 2^62 - 1 ns from the epoch, where differences cannot overflow.
TEST(RFC3339, InstantsFarFromTheEpochAreClampedNotOverflowed) {
  const Time limit = Time(Duration(kParsedTimeLimitNanos));
  const Time negativeLimit = Time(Duration(-kParsedTimeLimitNanos));
  EXPECT_EQ(*parseRFC3339("1013-11-23T09:00:10Z"), negativeLimit);
  EXPECT_EQ(*parseRFC3339("0001-01-01T00:00:00Z"), negativeLimit);  // Go's zero time
  EXPECT_EQ(*parseRFC3339("0000-01-01T00:00:00+23:59"), negativeLimit);
  EXPECT_EQ(*parseRFC3339("9999-12-31T23:59:59.999999999Z"), limit);
  EXPECT_EQ(*parseRFC3339("2262-04-12T00:00:00Z"), limit);
  EXPECT_EQ(formatRFC3339Nano(limit), "2116-02-20T23:53:38.427387903Z");
  EXPECT_EQ(formatRFC3339Nano(negativeLimit), "1823-11-12T00:06:21.572612097Z");
  EXPECT_EQ(*parseRFC3339(formatRFC3339Nano(limit)), limit);
  EXPECT_EQ(*parseRFC3339(formatRFC3339Nano(negativeLimit)), negativeLimit);
  // The widest difference of two parsed instants still fits.
  EXPECT_EQ((limit - negativeLimit).count(), std::numeric_limits<std::int64_t>::max() - 1);
  // Within the bound nothing changes.
  EXPECT_EQ(toUnixSeconds(*parseRFC3339("2116-02-20T23:53:38Z")), 4611686018);
  EXPECT_EQ(toUnixSeconds(*parseRFC3339("1823-11-12T00:06:22Z")), -4611686018);
}

TEST(GoDuration, ParsesGoForms) {
  using namespace std::chrono;
  EXPECT_EQ(*parseGoDuration("15s"), seconds(15));
  EXPECT_EQ(*parseGoDuration("5m"), minutes(5));
  EXPECT_EQ(*parseGoDuration("5m0s"), minutes(5));
  EXPECT_EQ(*parseGoDuration("1h30m"), minutes(90));
  EXPECT_EQ(*parseGoDuration("30.025s"), milliseconds(30025));
  EXPECT_EQ(*parseGoDuration("300ms"), milliseconds(300));
  EXPECT_EQ(*parseGoDuration("-1.5h"), -minutes(90));
  EXPECT_EQ(*parseGoDuration("0"), Duration(0));
}

TEST(GoDuration, RejectsMalformed) {
  for (const char* bad : {"", "15", "s", "5 m", "1x", "1.s5", "--1s", "1e3s"}) {
    EXPECT_FALSE(parseGoDuration(bad).ok()) << bad;
  }
}

TEST(DurationFlag, NamesTheFlagAndRefusesNegativeValues) {
  using namespace std::chrono;
  EXPECT_EQ(*parseDurationFlag("metric-window", "30s"), seconds(30));
  EXPECT_EQ(*parseDurationFlag("metric-window", "0"), Duration(0));
  EXPECT_EQ(parseDurationFlag("metric-window", "-1s").error().message,
            "invalid value \"-1s\" for --metric-window: must not be negative");
  EXPECT_EQ(parseDurationFlag("sync-period", "0s", true).error().message,
            "invalid value \"0s\" for --sync-period: must be positive");
  auto bad = parseDurationFlag("sync-period", "15");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("invalid value \"15\" for --sync-period: ", 0), 0u)
      << bad.error().message;
}

TEST(GoDuration, FormatsLikeGo) {
  using namespace std::chrono;
  EXPECT_EQ(formatGoDuration(seconds(15)), "15s");
  EXPECT_EQ(formatGoDuration(minutes(5)), "5m0s");
  EXPECT_EQ(formatGoDuration(hours(1)), "1h0m0s");
  EXPECT_EQ(formatGoDuration(milliseconds(30025)), "30.025s");
  EXPECT_EQ(formatGoDuration(milliseconds(500)), "500ms");
  EXPECT_EQ(formatGoDuration(Duration(0)), "0s");
  EXPECT_EQ(formatGoDuration(-seconds(90)), "-1m30s");
}

}  // namespace
}  // namespace hpa
