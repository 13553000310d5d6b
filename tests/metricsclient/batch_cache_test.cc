// The batch cache's reuse rules: an answer serves while younger than the age a caller accepts and
// never past the retention, a failure for at most a second.

#include "metricsclient/batch_cache.h"

#include <gtest/gtest.h>

#include <string>

#include "fakes/fake_clock.h"

namespace hpa::metricsclient {
namespace {

using std::chrono::seconds;

class BatchCacheTest : public ::testing::Test {
 protected:
  int get(const std::string& key, Duration maxAge) {
    auto answer = cache.get(key, maxAge, [&]() -> Result<int> {
      ++fetched;
      if (failing) return Error::of("unavailable");
      return fetched;
    });
    return (*answer).ok() ? **answer : -1;
  }
  hpa::testing::FakeClock clock{Time(seconds(1'700'000'000))};
  BatchCache<std::string, int> cache{clock, seconds(20)};
  int fetched = 0;
  bool failing = false;
};

TEST_F(BatchCacheTest, AnAnswerServesWhileYoungerThanTheCallersAge) {
  EXPECT_EQ(get("a", seconds(10)), 1);
  clock.step(seconds(9));
  EXPECT_EQ(get("a", seconds(10)), 1);
  EXPECT_EQ(get("a", seconds(5)), 2) << "a caller asking for fresher data fetches again";
  EXPECT_EQ(get("b", seconds(10)), 3) << "keys are apart";
  EXPECT_EQ(cache.fetches(), 3u);
}

TEST_F(BatchCacheTest, NoAnswerServesPastTheRetentionWhateverTheCallerAccepts) {
  EXPECT_EQ(get("a", seconds(60)), 1);
  clock.step(seconds(19));
  EXPECT_EQ(get("a", seconds(60)), 1);
  clock.step(seconds(1));
  EXPECT_EQ(get("a", seconds(60)), 2) << "20 s old: past the retention";
  for (int i = 0; i < 30; ++i) {
    clock.step(seconds(1));
    EXPECT_EQ(get("a", seconds(60)), 2 + (i + 1) / 20) << "at " << i;
  }
}

TEST_F(BatchCacheTest, AFailureServesForASecondAtMost) {
  failing = true;
  EXPECT_EQ(get("a", seconds(10)), -1);
  clock.step(std::chrono::milliseconds(900));
  EXPECT_EQ(get("a", seconds(10)), -1);
  EXPECT_EQ(fetched, 1);
  clock.step(std::chrono::milliseconds(100));
  failing = false;
  EXPECT_EQ(get("a", seconds(10)), 2);
}

}  // namespace
}  // namespace hpa::metricsclient
