#include "controller/staleness_guard.h"

#include <gtest/gtest.h>

namespace hpa::controller {
namespace {

TEST(StalenessGuard, StaleUntilTheCacheCatchesUp) {
  StalenessGuard w;
  EXPECT_FALSE(w.staleAgainst("ns/a", "5"));  // nothing written
  w.record("ns/a", "10");
  w.record("ns/a", "8");  // an older write never lowers the record
  EXPECT_EQ(w.staleAgainst("ns/a", "9"), "10");
  EXPECT_EQ(w.staleAgainst("ns/a", ""), std::nullopt);  // unknown cache version counts as ready
  w.record("ns/a", "12");
  EXPECT_EQ(w.staleAgainst("ns/a", "11"), "12");
  EXPECT_FALSE(w.staleAgainst("ns/a", "12"));  // caught up: record cleared
  EXPECT_FALSE(w.staleAgainst("ns/a", "1"));
  w.record("ns/b", "not-a-number");
  EXPECT_FALSE(w.staleAgainst("ns/b", "1"));
  w.record("ns/c", "7");
  w.forget("ns/c");
  EXPECT_FALSE(w.staleAgainst("ns/c", "1"));
}

// The informer records its version after the event's handlers ran: the object itself may
// already be at or past our write while the cache's version still trails.
TEST(StalenessGuard, TheCachedObjectsOwnVersionCountsWhenNewer) {
  StalenessGuard w;
  w.record("ns/a", "10");
  EXPECT_EQ(w.staleAgainst("ns/a", "9", "9"), "10");
  EXPECT_EQ(w.staleAgainst("ns/a", "9", "x"), "10");
  EXPECT_FALSE(w.staleAgainst("ns/a", "9", "10"));  // caught up: record cleared
  EXPECT_FALSE(w.staleAgainst("ns/a", "1"));
  w.record("ns/b", "10");
  EXPECT_EQ(w.staleAgainst("ns/b", "", "9"),
            std::nullopt);  // an unknown cache version still counts as ready
}

}  // namespace
}  // namespace hpa::controller
