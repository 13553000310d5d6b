#include "shadow/their_window.h"

#include <gtest/gtest.h>

#include <limits>

namespace hpa::shadow {
namespace {

using std::chrono::seconds;

const Time kStart = Time(seconds(1'700'000'000));

std::vector<std::pair<std::int32_t, std::int64_t>> flat(
    const std::vector<api::TimestampedRecommendation>& recs) {
  std::vector<std::pair<std::int32_t, std::int64_t>> out;
  for (const auto& r : recs)
    out.emplace_back(r.replicas, std::chrono::duration_cast<seconds>(r.timestamp - kStart).count());
  return out;
}

TEST(TheirWindowTest, ADecisionIsRecordedAgainEachPeriodUntilTheNextWrite) {
  TheirWindow window(seconds(15));
  window.observed(kStart, 5);
  window.observed(kStart + seconds(50), 3);
  const auto recs = window.recommendationsAt(kStart + seconds(80), seconds(300));
  using P = std::pair<std::int32_t, std::int64_t>;
  // The sync due at 45 s came 5 s late: it is the write at 50 s.
  EXPECT_EQ(flat(recs), (std::vector<P>{{5, 0}, {5, 15}, {5, 30}, {3, 50}, {3, 65}}));
  EXPECT_EQ(window.since(), kStart);
}

TEST(TheirWindowTest, OnlyTheWindowIsKeptAndAFailedSyncRecordsNothing) {
  TheirWindow window(seconds(10));
  window.observed(kStart, 7);
  window.observed(kStart + seconds(100), std::nullopt);
  window.observed(kStart + seconds(130), 2);
  const auto recs = window.recommendationsAt(kStart + seconds(150), seconds(60));
  using P = std::pair<std::int32_t, std::int64_t>;
  // 7 ended before the window began; the failed stretch recorded nothing.
  EXPECT_EQ(flat(recs), (std::vector<P>{{2, 130}, {2, 140}}));
  EXPECT_EQ(window.since(), kStart) << "the first observation stays, though its segment is gone";
}

TEST(TheirWindowTest, ANegativeProposalRecordsNothing) {
  TheirWindow window(seconds(15));
  window.observed(kStart, std::numeric_limits<std::int32_t>::min());
  EXPECT_TRUE(window.recommendationsAt(kStart + seconds(40), seconds(300)).empty());
}

TEST(TheirWindowTest, AnOutOfOrderObservationIsIgnored) {
  TheirWindow window(seconds(15));
  window.observed(kStart + seconds(30), 4);
  window.observed(kStart, 9);
  EXPECT_EQ(flat(window.recommendationsAt(kStart + seconds(40), seconds(300))),
            (std::vector<std::pair<std::int32_t, std::int64_t>>{{4, 30}}));
}

TEST(TheirWindowTest, ItIsKnownFromItsStartOnlyWhenTheFirstObservedDecisionWasTheirFirst) {
  TheirWindow fromStart(seconds(15));
  fromStart.observed(kStart, 4, /*itsFirstDecision=*/true);
  EXPECT_TRUE(fromStart.knownFromItsStart());
  TheirWindow joined(seconds(15));
  joined.observed(kStart, 4);
  joined.observed(kStart + seconds(15), 5,
                  /*itsFirstDecision=*/true);  // only the first observation says
  EXPECT_FALSE(joined.knownFromItsStart());
}

TEST(TheirWindowTest, ItsFirstReconcileStartsFromTheSizeItReadForOneWindow) {
  TheirWindow window(seconds(15));
  window.startedAt(kStart, 4);
  using P = std::pair<std::int32_t, std::int64_t>;
  EXPECT_EQ(flat(window.recommendationsAt(kStart, seconds(35))), (std::vector<P>{{4, 0}}))
      << "the first decision stabilizes over the size it started from";
  window.observed(kStart, std::nullopt, /*itsFirstDecision=*/true);  // its metrics failed
  window.startedAt(kStart + seconds(15), 9);  // only its first reconcile starts it
  EXPECT_EQ(flat(window.recommendationsAt(kStart + seconds(15), seconds(35))),
            (std::vector<P>{{4, 0}}));
  EXPECT_TRUE(window.recommendationsAt(kStart + seconds(40), seconds(35)).empty())
      << "gone after the window";
}

TEST(TheirWindowTest, AWindowJoinedLaterHasNoStartingSize) {
  TheirWindow window(seconds(15));
  window.observed(kStart, 5);
  window.startedAt(kStart + seconds(15), 9);
  EXPECT_EQ(flat(window.recommendationsAt(kStart + seconds(15), seconds(300))),
            (std::vector<std::pair<std::int32_t, std::int64_t>>{{5, 0}}));
}

}  // namespace
}  // namespace hpa::shadow
